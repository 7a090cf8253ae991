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
    "figure.peak_memory": ("peak memory", "Spitzenbedarf an Speicher"),
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
    # Column headers of the level lists (screens/items.py); the compiler's own names stay as written.
    "column.layer": ("layer", "Schicht"),
    "column.class": ("class", "Klasse"),
    "column.output_shape": ("output shape", "Ausgabeform"),
    "column.params": ("params", "Parameter"),
    "column.op": ("op", "Op"),
    "column.type": ("type", "Typ"),
    "column.output": ("output", "Ausgabe"),
    "column.instruction": ("instruction", "Instruktion"),
    "column.opcode": ("opcode", "Opcode"),
    "column.shape": ("shape", "Form"),
    "column.op_name": ("op_name", "op_name"),  # the HLO metadata field's own name
    "column.kernel": ("kernel", "Kernel"),
    "column.kind": ("kind", "Art"),
    "column.vector": ("vector", "Vektor"),
    "column.implements": ("implements", "setzt um"),
    # Field names in the memory-layout and device panes (screens/widgets/memory_pane.py, device_pane.py).
    "field.dtype_policy": ("dtype policy", "dtype-Richtlinie"),
    "field.inputs": ("inputs", "Eingaben"),
    "field.outputs": ("outputs", "Ausgaben"),
    "field.output": ("output", "Ausgabe"),
    "field.weights": ("weights", "Gewichte"),
    "field.activations": ("activations", "Aktivierungen"),
    "field.shape": ("shape", "Form"),
    "field.dtype": ("dtype", "Elementtyp"),
    "field.bits_stored": ("bits stored", "Bit gespeichert"),
    "field.elements": ("elements", "Elemente"),
    "field.bytes": ("bytes", "Bytes"),
    "field.minor_to_major": ("minor-to-major", "minor-to-major"),
    "field.fastest_first": ("fastest first", "schnellste zuerst"),
    "field.strides": ("strides (bytes, tiles ignored)", "Schrittweiten (Bytes, ohne Kacheln)"),
    "field.tiles": ("tiles", "Kacheln"),
    "field.padded_to": ("padded to", "aufgefüllt auf"),
    "field.without_padding": ("without padding", "ohne Auffüllung"),
    "field.with_padding": ("with padding", "mit Auffüllung"),
    "field.untiled": ("untiled: no padding", "ungekachelt: keine Auffüllung"),
    "field.memory_space": ("memory space", "Speicherraum"),
    "field.on_chip_vmem": ("on-chip VMEM", "VMEM auf dem Chip"),
    "field.layout": ("layout", "Layout"),
    "field.layout_not_written": ("layout not written in this HLO (row-major)",
                                 "Layout in diesem HLO nicht angegeben (zeilenweise)"),
    "field.tuple_of": ("tuple of {count}: {bytes} without padding", "Tupel aus {count}: {bytes} ohne Auffüllung"),
    "field.buffer": ("buffer", "Puffer"),
    "field.allocation": ("allocation", "Allokation"),
    "field.offset": ("offset", "Offset"),
    "field.size": ("size", "Größe"),
    "field.live": ("live", "lebt"),
    "field.live_positions": ("positions {start}..{end} in program order",
                             "Positionen {start}..{end} in Programmreihenfolge"),
    "field.vector_width": ("vector width {bits} bits", "Vektorbreite {bits} Bit"),
    "field.registers": ("registers", "Register"),
    "field.grid": ("grid", "Grid"),
    "field.block": ("block", "Block"),
    "field.shared": ("shared", "Shared Memory"),
    "field.rank_unknown": ("rank unknown", "Rang unbekannt"),
    "field.calls": ("calls", "ruft auf"),
    "field.more": ("... {count} more", "... {count} weitere"),
    # Whole sentences in the panes.
    "text.no_layer": ("this item belongs to no layer (created by XLA)",
                      "dieses Element gehört zu keiner Schicht (von XLA erzeugt)"),
    "text.layer_of": ("layer {layer}", "Schicht {layer}"),
    "text.capture_failed": ("capture failed: {error}", "Erfassung fehlgeschlagen: {error}"),
    "text.optimized_not_captured": ("optimized HLO not captured yet", "optimiertes HLO noch nicht erfasst"),
    "text.nothing_for_layer": ("nothing recorded for this layer", "für diese Schicht nichts aufgezeichnet"),
    "text.nothing_for_item": ("nothing recorded for this item", "für dieses Element nichts aufgezeichnet"),
    "text.family_not_captured": ("{family} not captured ({example}): {how}.",
                                 "{family} nicht erfasst ({example}): {how}."),
    "text.press_to_capture": ("press {key} to capture it", "{key} drücken, um es zu erfassen"),
    "text.capture_again": ("capture again with this target", "erneut mit diesem Ziel erfassen"),
    "text.memory_not_captured": ("buffer: memory level not captured", "Puffer: Speicherebene nicht erfasst"),
    "text.no_allocation": ("buffer: no allocation holds this value (fused into its consumer)",
                           "Puffer: keine Allokation hält diesen Wert (in seinen Verbraucher verschmolzen)"),
    "text.no_explanation_module": ("Explanations are not available yet.", "Erklärungen sind noch nicht verfügbar."),
    "text.no_course_text": ("No course text yet for this level ({error}).",
                            "Für diese Ebene gibt es noch keinen Kurstext ({error})."),
    "text.library_call": ("A library call{calls}: XLA emits only the call, so there is no kernel code of "
                          "its own to show.",
                          "Ein Bibliotheksaufruf{calls}: XLA erzeugt nur den Aufruf, daher gibt es keinen eigenen "
                          "Kernel-Code zu zeigen."),
    "text.no_code": ("no code recorded for this kernel", "für diesen Kernel kein Code aufgezeichnet"),
    "text.no_hlo_text": ("No HLO text for this target (the line above says why).",
                         "Kein HLO-Text für dieses Ziel (die Zeile darüber sagt, warum)."),
    "text.nothing_selected": ("nothing selected", "nichts ausgewählt"),
    "text.radius": ("radius {radius} ({count} nodes)", "Radius {radius} ({count} Knoten)"),
    "text.no_allocations": ("no allocations recorded", "keine Allokationen aufgezeichnet"),
    "text.no_live_ranges": ("no live ranges recorded for this target",
                            "für dieses Ziel keine Lebensdauern aufgezeichnet"),
    "text.peak_at": ("^ peak at position {position}: {bytes} live", "^ Spitze an Position {position}: {bytes} leben"),
    "text.capture_progress": ("capture", "Erfassung"),
    "text.tour_matches_nothing": ("(select={selector} matches nothing in this capture)",
                                  "(select={selector} passt auf nichts in dieser Erfassung)"),
    "text.tour_keys": ("n/→ next   p/← back   q/Esc leave the tour",
                       "n/→ weiter   p/← zurück   q/Esc Führung verlassen"),
    "text.glossary_placeholder": ("search terms and definitions", "Begriffe und Definitionen durchsuchen"),
    "text.glossary_nothing": ("No term matches.", "Kein Begriff passt."),
    # Compare screen.
    "compare.title": ("Compare targets", "Ziele vergleichen"),
    "compare.nothing_yet": ("Nothing to compare yet: the capture is still running or no bundle is open.",
                            "Noch nichts zu vergleichen: Die Erfassung läuft noch, oder kein Bundle ist geöffnet."),
    "compare.no_layers": ("This model has no layers to compare.", "Dieses Modell hat keine Schichten zum Vergleichen."),
    "compare.layer_per_target": ("Layer {layer} per target", "Schicht {layer} je Ziel"),
    "compare.model_per_target": ("Whole model per target", "Ganzes Modell je Ziel"),
    "compare.keys": ("n/p layer, Esc back", "n/p Schicht, Esc zurück"),
    "compare.estimate_note": ("Est. time is a roofline ESTIMATE from published peaks, never a measurement. "
                              "S(n) in a layout is XLA's memory space (on TPU, S(1) is VMEM).",
                              "Gesch. Zeit ist eine Roofline-SCHÄTZUNG aus veröffentlichten Spitzenwerten, nie eine "
                              "Messung. S(n) in einem Layout ist der Speicherraum von XLA (auf der TPU "
                              "ist S(1) VMEM)."),
    "compare.row.fusions_ops": ("fusions/ops", "Fusionen/Ops"),
    "compare.row.kernels": ("kernels", "Kernel"),
    "compare.row.library_calls": ("library calls", "Bibliotheksaufrufe"),
    "compare.row.layouts": ("layouts", "Layouts"),
    "compare.row.bytes_padded": ("bytes / padded", "Bytes / aufgefüllt"),
    "compare.row.flops": ("FLOPs", "FLOPs"),
    "compare.row.est_time": ("est. time", "gesch. Zeit"),
    "compare.no_instruction": ("no instruction carries this layer's ops",
                               "keine Instruktion trägt die Ops dieser Schicht"),
    "compare.no_peaks": ("no peak figures", "keine Spitzenwerte"),
    "compare.bound": ("{count} {kind}-bound", "{count} {kind}-begrenzt"),
    "compare.see_below": ("{status} (see below)", "{status} (siehe unten)"),
    # Footer binding descriptions (short) and their help texts (tooltips), by binding id.
    "binding.app.level1": ("Layers", "Schichten"),
    "binding.app.level2": ("Graph", "Graph"),
    "binding.app.level3": ("HLO", "HLO"),
    "binding.app.level4": ("Opt HLO", "Opt. HLO"),
    "binding.app.level5": ("Kernels", "Kernel"),
    "binding.app.memory": ("Memory", "Speicher"),
    "binding.app.target": ("Target", "Ziel"),
    "binding.app.capture": ("Capture", "Erfassen"),
    "binding.app.help": ("Help", "Hilfe"),
    "binding.app.glossary": ("Glossary", "Glossar"),
    "binding.app.language": ("Lang", "Sprache"),
    "binding.app.tours": ("Tours", "Führungen"),
    "binding.app.quit": ("Quit", "Beenden"),
    "binding.app.compare": ("Compare targets", "Ziele vergleichen"),
    "binding.level.filter": ("Filter", "Filtern"),
    "binding.level.down": ("Down", "Hinunter"),
    "binding.level.back": ("Back", "Zurück"),
    "binding.graph.toggle": ("Graph", "Graph"),
    "binding.graph.wider": ("Radius+", "Radius+"),
    "binding.graph.narrower": ("Radius-", "Radius-"),
    "binding.kernels.view": ("Code view", "Code-Ansicht"),
    "binding.hlo.operand": ("Operand", "Operand"),
    "binding.memory.back": ("Back", "Zurück"),
    "binding.compare.close": ("Close", "Schließen"),
    "binding.compare.next_layer": ("Next layer", "Nächste Schicht"),
    "binding.compare.previous_layer": ("Prev layer", "Vorige Schicht"),
    "binding.tour.next": ("Next step", "Nächster Schritt"),
    "binding.tour.previous": ("Previous step", "Voriger Schritt"),
    "binding.tour.leave": ("Leave tour", "Führung verlassen"),
    "binding.tour.language": ("Lang", "Sprache"),
    "binding.tour.glossary": ("Glossary", "Glossar"),
    "binding.tours.close": ("Close", "Schließen"),
    "binding.glossary.close": ("Close", "Schließen"),
    "binding.glossary.next": ("Next term", "Nächster Begriff"),
    "binding.glossary.previous": ("Previous term", "Voriger Begriff"),
    "binding.help.close": ("Close", "Schließen"),
    "binding.code.down": ("Down", "Runter"),
    "binding.code.up": ("Up", "Hoch"),
    "binding.code.pagedown": ("Page down", "Seite runter"),
    "binding.code.pageup": ("Page up", "Seite hoch"),
    "tooltip.app.level1": ("Level 1: Keras layers", "Ebene 1: Keras-Schichten"),
    "tooltip.app.level2": ("Level 2: TensorFlow graph ops", "Ebene 2: Ops des TensorFlow-Graphen"),
    "tooltip.app.level3": ("Level 3: HLO before optimisation", "Ebene 3: HLO vor der Optimierung"),
    "tooltip.app.level4": ("Level 4: HLO after XLA's optimisation passes",
                           "Ebene 4: HLO nach den Optimierungsläufen von XLA"),
    "tooltip.app.level5": ("Level 5: emitted kernels", "Ebene 5: erzeugte Kernel"),
    "tooltip.app.memory": ("Memory map of the optimized level: allocations and live ranges",
                           "Speicherkarte der optimierten Ebene: Allokationen und Lebensdauern"),
    "tooltip.app.target": ("Show the next captured target", "Das nächste erfasste Ziel zeigen"),
    "tooltip.app.capture": ("Capture the targets not in this bundle (needs a model, not only a bundle)",
                            "Die Ziele erfassen, die in diesem Bundle fehlen (braucht ein Modell, nicht "
                            "nur ein Bundle)"),
    "tooltip.app.help": ("Help for this screen", "Hilfe zu dieser Ansicht"),
    "tooltip.app.glossary": ("Open the glossary (searchable)", "Das Glossar öffnen (durchsuchbar)"),
    "tooltip.app.language": ("Switch language (English/German): interface labels and explanations",
                             "Sprache wechseln (Englisch/Deutsch): Beschriftungen und Erklärungen"),
    "tooltip.app.tours": ("Choose a built-in guided tour", "Eine eingebaute Führung wählen"),
    "tooltip.app.quit": ("Quit tensorweg", "tensorweg beenden"),
    "tooltip.app.compare": ("The selected layer on every target side by side: fusions, kernels, layouts, est. time",
                            "Die gewählte Schicht auf allen Zielen nebeneinander: Fusionen, Kernel, "
                            "Layouts, gesch. Zeit"),
    "tooltip.level.filter": ("Filter the list by a substring (Esc closes)",
                             "Die Liste nach einer Zeichenfolge filtern (Esc schließt)"),
    "tooltip.level.down": ("Go one level down to the items that implement the selection",
                           "Eine Ebene tiefer zu den Elementen, die die Auswahl umsetzen"),
    "tooltip.level.back": ("Go back up the trail, restoring the previous selection",
                           "Den Pfad zurückgehen und die vorige Auswahl wiederherstellen"),
    "tooltip.graph.toggle": ("Draw the selection's neighbourhood as boxes and arrows",
                             "Die Nachbarschaft der Auswahl als Kästen und Pfeile zeichnen"),
    "tooltip.graph.wider": ("Draw one more hop around the selection", "Einen Schritt mehr um die Auswahl zeichnen"),
    "tooltip.graph.narrower": ("Draw one hop fewer around the selection",
                               "Einen Schritt weniger um die Auswahl zeichnen"),
    "tooltip.kernels.view": ("Cycle assembly / LLVM IR / optimized LLVM IR / PTX",
                             "Wechseln zwischen Assembler / LLVM-IR / optimiertem LLVM-IR / PTX"),
    "tooltip.hlo.operand": ("Jump to the definition of the selection's first operand (Backspace returns)",
                            "Zur Definition des ersten Operanden der Auswahl springen (Rücktaste kehrt zurück)"),
    "tooltip.memory.back": ("Back to the optimized HLO", "Zurück zum optimierten HLO"),
    "tooltip.compare.close": ("Close the comparison and return to the level screen",
                              "Den Vergleich schließen und zur Ebenenansicht zurückkehren"),
    "tooltip.compare.next_layer": ("Compare the next layer of the model",
                                   "Die nächste Schicht des Modells vergleichen"),
    "tooltip.compare.previous_layer": ("Compare the previous layer of the model",
                                       "Die vorige Schicht des Modells vergleichen"),
    "tooltip.tour.next": ("Go to the tour's next step", "Zum nächsten Schritt der Führung"),
    "tooltip.tour.previous": ("Go back to the tour's previous step", "Zurück zum vorigen Schritt der Führung"),
    "tooltip.tour.leave": ("Leave the tour; the level screen stays where the step put it",
                           "Die Führung verlassen; die Ebenenansicht bleibt, wo der Schritt sie hingestellt hat"),
    "tooltip.tour.language": ("Switch language (English/German) of the interface and the level's explanation",
                              "Sprache wechseln (Englisch/Deutsch) für Oberfläche und Erklärung der Ebene"),
    "tooltip.tour.glossary": ("Open the glossary (searchable)", "Das Glossar öffnen (durchsuchbar)"),
    "tooltip.tours.close": ("Close the tour list", "Die Liste der Führungen schließen"),
    "tooltip.glossary.close": ("Close the glossary", "Das Glossar schließen"),
    "tooltip.glossary.next": ("Highlight the next term in the list", "Den nächsten Begriff der Liste markieren"),
    "tooltip.glossary.previous": ("Highlight the previous term in the list", "Den vorigen Begriff der Liste markieren"),
    "tooltip.help.close": ("Close the help", "Die Hilfe schließen"),
    "tooltip.code.down": ("Scroll the code down", "Den Code nach unten rollen"),
    "tooltip.code.up": ("Scroll the code up", "Den Code nach oben rollen"),
    "tooltip.code.pagedown": ("Scroll the code a page down", "Den Code eine Seite nach unten rollen"),
    "tooltip.code.pageup": ("Scroll the code a page up", "Den Code eine Seite nach oben rollen"),
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
        "Grappler). Die Spalte Schicht nennt die Keras-Schicht, aus der eine Op stammt. Enter geht hinunter "
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
        "Berechnung zählen für die Fusion, die sie aufruft. Das Feld Speicherlayout zeigt den Puffer, in dem "
        "jeder Wert liegt (m öffnet die Speicherkarte). Enter geht hinunter zum Kernel einer Fusion."),
    "help.kernels": (
        "Level 5, kernels: what the target's backend emitted for each fusion or library call. "
        "v switches between assembly, LLVM IR and PTX where recorded; the memory pane shows vector "
        "width and registers (CPU) or the launch grid and block (GPU).",
        "Ebene 5, Kernel: was das Backend des Ziels für jede Fusion oder jeden Bibliotheksaufruf erzeugt "
        "hat. v wechselt zwischen Assembler, LLVM-IR und PTX, soweit aufgezeichnet; das Feld Speicherlayout "
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
