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
    "word.keys": ("Keys", "Tasten"),
    "word.trail": ("trail", "Pfad"),
    # The UI's own lines ({placeholders} are filled with str.format).
    "title.no_model": ("no model", "kein Modell"),
    "pane.help": ("Help (Esc closes)", "Hilfe (Esc schließt)"),
    "pane.allocations": ("Allocations (by size; values at their offsets)",
                         "Allokationen (nach Größe; Werte an ihren Offsets)"),
    "pane.live_ranges": ("Live ranges over program order", "Lebensdauern in Programmreihenfolge"),
    "state.select_item": ("select an item", "ein Element auswählen"),
    "notice.opening": ("Opening bundle {bundle}...", "Bundle {bundle} wird geöffnet..."),
    "notice.failed": ("{level} failed for {target}: {error}.", "{level} ist für {target} fehlgeschlagen: {error}."),
    "notice.running": ("Capturing {level} for {target}...", "{level} für {target} wird erfasst..."),
    "notice.unavailable": ("{level} is unavailable for {target}: {error}.",
                           "{level} ist für {target} nicht verfügbar: {error}."),
    "notice.not_captured": ("{level} not captured yet for {target}.", "{level} für {target} noch nicht erfasst."),
    "notice.still_usable": ("Still usable: {levels} (keys 1-5).", "Weiterhin nutzbar: {levels} (Tasten 1-5)."),
    "notice.memory_not_captured": ("memory level not captured for this target",
                                   "Speicherebene für dieses Ziel nicht erfasst"),
    "notify.lowest_level": ("This is the lowest level.", "Das ist die unterste Ebene."),
    "notify.nothing_below": ("Nothing one level down implements {name} (compiler-created or removed).",
                             "Nichts eine Ebene tiefer setzt {name} um (vom Compiler erzeugt oder entfernt)."),
    "notify.several_below": ("{count} items implement {name}: {first}",
                             "{count} Elemente setzen {name} um: {first}"),
    "notify.one_target": ("Only one target captured.", "Nur ein Ziel erfasst."),
    "notify.nothing_to_maximize": ("Nothing focused to maximise: Tab moves the focus to a pane.",
                                   "Nichts fokussiert zum Maximieren: Tab setzt den Fokus auf einen Bereich."),
    "notify.capture_needs_model": (
        "Opened from a bundle: run a capture with the extra targets to add them.",
        "Aus einem Bundle geöffnet: eine Erfassung mit den zusätzlichen Zielen fügt sie hinzu."),
    "notify.no_operands": ("{name} has no operands.", "{name} hat keine Operanden."),
    "notify.operands": ("operands of {name}: {operands}", "Operanden von {name}: {operands}"),
    "help.palette": ("ctrl+p opens the command palette: type any layer, op, instruction or kernel name.",
                     "Strg+P öffnet die Befehlspalette: Namen einer Schicht, Op, Instruktion oder eines Kernels "
                     "eintippen."),
    "help.layers": (
        "Level 1, Keras layers: the model as you wrote it. Each row is one layer with its output "
        "shape and parameter count. Enter goes down to the TensorFlow ops the layer was traced into; "
        "g draws the layer's neighbours (+/- changes how far).",
        "Ebene 1, Keras-Schichten: das Modell, wie Sie es geschrieben haben. Jede Zeile ist eine Schicht "
        "mit Ausgabeform und Parameterzahl. Enter geht hinunter zu den TensorFlow-Ops, in die die Schicht "
        "übersetzt wurde; g zeichnet die Nachbarn der Schicht (+/- ändert, wie weit)."),
    "help.graph": (
        "Level 2, TF graph: the ops TensorFlow traced from one call of the model (before Grappler). "
        "The layer column says which Keras layer an op came from. Enter goes down to the HLO "
        "instructions XLA made of the op; g draws the op's neighbourhood.",
        "Ebene 2, TF-Graph: die Ops, die TensorFlow aus einem Aufruf des Modells aufgezeichnet hat (vor "
        "Grappler). Die Spalte layer nennt die Keras-Schicht, aus der eine Op stammt. Enter geht hinunter "
        "zu den HLO-Instruktionen, die XLA aus der Op gemacht hat; g zeichnet die Nachbarschaft der Op."),
    "help.hlo": (
        "Level 3, HLO: XLA's input program. Each TF op became one or more HLO instructions; the "
        "op_name column names the op (and so the layer) it came from. Enter goes down to the "
        "optimized instruction (usually a fusion) that now computes it; o follows an operand.",
        "Ebene 3, HLO: das Eingabeprogramm von XLA. Jede TF-Op wurde zu einer oder mehreren "
        "HLO-Instruktionen; die Spalte op_name nennt die Op (und damit die Schicht), aus der sie stammt. "
        "Enter geht hinunter zur optimierten Instruktion (meist einer Fusion), die sie jetzt berechnet; "
        "o folgt einem Operanden."),
    "help.optimized-hlo": (
        "Level 4, optimized HLO: after fusion and layout assignment. Instructions inside a fused "
        "computation count for the fusion that calls it. The memory pane shows the buffer each value "
        "lives in (m opens the memory map). Enter goes down to the kernel emitted for a fusion.",
        "Ebene 4, optimiertes HLO: nach Fusion und Layout-Zuweisung. Instruktionen in einer fusionierten "
        "Berechnung zählen für die Fusion, die sie aufruft. Der Speicherbereich zeigt den Puffer, in dem "
        "jeder Wert liegt (m öffnet die Speicherkarte). Enter geht hinunter zum Kernel einer Fusion."),
    "help.kernels": (
        "Level 5, kernels: what the target's backend emitted for each fusion or library call. "
        "v switches between assembly, LLVM IR and PTX where recorded; the memory pane shows vector "
        "width and registers (CPU) or the launch grid and block (GPU).",
        "Ebene 5, Kernel: was das Backend des Ziels für jede Fusion oder jeden Bibliotheksaufruf erzeugt "
        "hat. v wechselt zwischen Assembler, LLVM IR und PTX, soweit aufgezeichnet; der Speicherbereich "
        "zeigt Vektorbreite und Register (CPU) oder Grid und Block des Starts (GPU)."),
    "help.memory": (
        "Memory map: XLA's buffer assignment for the optimized module. Top: each allocation as a bar "
        "as long as its size, the values placed in it at their offsets. Below: the largest values' "
        "live ranges over program order (instruction positions, not time); ^ marks where the most "
        "bytes are live at once. XLA reuses an allocation for values whose ranges do not overlap.",
        "Speicherkarte: die Pufferzuweisung von XLA für das optimierte Modul. Oben: jede Allokation als "
        "Balken so lang wie ihre Größe, die Werte darin an ihren Offsets. Darunter: die Lebensdauern der "
        "größten Werte in Programmreihenfolge (Positionen von Instruktionen, keine Zeit); ^ markiert, wo "
        "die meisten Bytes gleichzeitig leben. XLA verwendet eine Allokation wieder für Werte, deren "
        "Lebensdauern sich nicht überschneiden."),
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
