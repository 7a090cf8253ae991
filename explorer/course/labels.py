"""Interface strings in English and German, so screens never hard-code a language."""

from __future__ import annotations

from explorer.errors import TensorwegError

# key -> (English, German)
LABELS: dict[str, tuple[str, str]] = {
    # Level names (the keys are the level names used everywhere else).
    "level.layers": ("Keras layers", "Keras-Schichten"),
    "level.graph": ("TensorFlow graph", "TensorFlow-Graph"),
    "level.hlo": ("HLO", "HLO"),
    "level.optimized-hlo": ("Optimized HLO", "Optimiertes HLO"),
    "level.kernels": ("Kernels", "Kernel"),
    "level.memory": ("Memory", "Speicher"),
    # Pane titles.
    "pane.memory_layout": ("Memory layout", "Speicherlayout"),
    "pane.device_mapping": ("Device mapping", "Gerätezuordnung"),
    "pane.explanation": ("Explanation", "Erklärung"),
    "pane.glossary": ("Glossary", "Glossar"),
    "pane.trace": ("Trace", "Spur"),
    "pane.source": ("Source", "Quelle"),
    "pane.details": ("Details", "Details"),
    "pane.tour": ("Tour", "Führung"),
    # Item states.
    "state.created_by_xla": ("created by XLA", "von XLA erzeugt"),
    "state.not_captured": ("not captured", "nicht erfasst"),
    "state.capturing": ("capturing…", "wird erfasst…"),
    "state.failed": ("failed", "fehlgeschlagen"),
    "state.unavailable": ("unavailable", "nicht verfügbar"),
    "state.fused_away": ("fused into", "verschmolzen in"),
    "state.removed_by_grappler": ("removed by Grappler", "von Grappler entfernt"),
    "state.no_explanation": ("no explanation yet", "noch keine Erklärung"),
    # Figures.
    "figure.bytes": ("bytes", "Bytes"),
    "figure.padding": ("padding", "Auffüllung"),
    "figure.peak_memory": ("peak memory", "Spitzenspeicher"),
    "figure.params": ("parameters", "Parameter"),
    "figure.flops": ("FLOPs", "FLOPs"),
    "figure.grid": ("grid", "Grid"),
    "figure.block": ("block", "Block"),
    "figure.vector_width": ("vector width", "Vektorbreite"),
    "figure.target": ("target", "Ziel"),
    # Key help texts.
    "key.next_level": ("next level down", "eine Ebene tiefer"),
    "key.previous_level": ("next level up", "eine Ebene höher"),
    "key.trace": ("follow this item through all levels", "dieses Element durch alle Ebenen verfolgen"),
    "key.explain": ("show or hide the explanation", "Erklärung zeigen oder verbergen"),
    "key.glossary": ("open the glossary", "Glossar öffnen"),
    "key.target": ("switch target (CPU, GPU, TPU)", "Ziel wechseln (CPU, GPU, TPU)"),
    "key.search": ("jump to a layer, op, instruction or kernel", "zu Schicht, Op, Instruktion oder Kernel springen"),
    "key.tour_next": ("next tour step", "nächster Schritt der Führung"),
    "key.tour_previous": ("previous tour step", "vorheriger Schritt der Führung"),
    "key.language": ("switch language (English/German)", "Sprache wechseln (Deutsch/Englisch)"),
    "key.quit": ("quit", "beenden"),
    "key.help": ("show keys", "Tasten anzeigen"),
    # Words used around explanations.
    "word.source": ("Source", "Quelle"),
    "word.see_also": ("See also", "Siehe auch"),
    "word.step": ("Step", "Schritt"),
    "word.of": ("of", "von"),
}


def label(key: str, lang: str) -> str:
    """The UI string for `key` in `lang` ("en" or "de"); unknown keys raise, so typos show in tests."""
    try:
        english, german = LABELS[key]
    except KeyError:
        raise TensorwegError(f"unknown label '{key}'") from None
    if lang not in ("en", "de"):
        raise TensorwegError(f"unknown language '{lang}' (try: de, en)")
    return german if lang == "de" else english
