"""The one door between the UI and the core: the explorer's session service.

`SessionService` (explorer.session.service) holds what the app's state is and is the only way anything
starts a capture (`CapturePolicy`, explorer.session.policy); background work reports the events of
`explorer.session.events`. Screens import this package, `explorer.views`, `explorer.labels` and the
leaves, nothing else of the core (an import-linter contract in pyproject.toml).
"""
