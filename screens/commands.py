"""Command palette provider: jump to any layer, op, instruction or kernel by name."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from explorer.levels import LIST_LEVELS
from explorer.views.items import LevelItem
from explorer.views.rows import rows


class ItemCommands(Provider):
    """Every item of every captured level of the current target, matched fuzzily."""

    async def startup(self) -> None:
        app = self.app
        self._items: list[LevelItem] = []
        if getattr(app, "bundle", None) is None:
            return
        session = app.session
        for level in LIST_LEVELS:
            if session.level_ready(level):
                self._items.extend(rows(app.bundle, level, app.target, app.lang))

    def _jump(self, item: LevelItem) -> None:
        self.app.goto_level(item.level, item.name)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        title = self.app.session.now.level_title
        for item in self._items:
            text = f"{item.name} ({title(item.level)}, {item.kind})"
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self._jump, item),
                          help=f"jump to this {item.kind} on the {title(item.level)} level")

    async def discover(self) -> Hits:
        title = self.app.session.now.level_title
        for item in self._items[:40]:
            yield DiscoveryHit(f"{item.name} ({title(item.level)})", partial(self._jump, item))
