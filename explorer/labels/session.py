"""What the session service says when it refuses or ends something (`explorer.session`)."""

from __future__ import annotations

# key -> (English, German)
LABELS: dict[str, tuple[str, str]] = {
    "notify.capture_forbidden": (
        "This explorer shows what was captured; it does not capture (ask the instructor for a pack with it).",
        "Dieser Explorer zeigt nur Erfasstes; er erfasst nichts (fragen Sie nach einem Paket damit)."),
    "notify.capture_runs_code": (
        "This bundle was captured from {spec}, which runs Python: name it yourself to capture again.",
        "Dieses Bundle stammt aus {spec}, das Python ausführt: Geben Sie es selbst an, um neu zu erfassen."),
    "notify.capture_needs_model": (
        "Opened from a bundle that names no model to run: open the model itself to capture.",
        "Aus einem Bundle geöffnet, das kein ausführbares Modell nennt: Öffnen Sie das Modell selbst, um zu erfassen."),
    "notify.copied": ("Copied {count} characters to the clipboard.", "{count} Zeichen in die Zwischenablage kopiert."),
}
