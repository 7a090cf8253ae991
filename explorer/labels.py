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
    "pane.tour": ("Tour", "Führung"),
    # Item states.
    "state.created_by_xla": ("created by XLA", "von XLA erzeugt"),
    "state.not_captured": ("not captured", "nicht erfasst"),
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
    "field.with": ("with", "mit"),
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
    "field.holds": ("holds", "hält"),
    "field.more": ("... {count} more", "... {count} weitere"),
    # A parameter's role (view.role_text): HLO rows' last column and the memory pane's "holds".
    "role.input": ("input {layer}", "Eingabe {layer}"),
    "role.input_of": ("input {position} of {count} {layer}", "Eingabe {position} von {count} {layer}"),
    "role.model_input": ("model input", "Modelleingabe"),
    "role.model_input_of": ("model input {position} of {count}", "Modelleingabe {position} von {count}"),
    "role.weight": ("weight {position} of {count} of {layer}", "Gewicht {position} von {count} der Schicht {layer}"),
    "role.unmatched_weight": ("a model weight (no layer's parameter count matches)",
                              "ein Gewicht des Modells (zu keiner Schicht passt die Parameterzahl)"),
    # Header rows of the HLO lists' foldable groups (view.row_groups); the group keys stay English.
    "group.parameters": ("{count} parameters", "{count} Parameter"),
    "group.constants": ("{count} constants", "{count} Konstanten"),
    "group.parameter_note": ("the model's inputs and weights", "die Eingaben und Gewichte des Modells"),
    "group.constant_note": ("literals the program uses", "Literale, die das Programm verwendet"),
    "group.computation": ("computation", "Berechnung"),
    "group.instructions": ("{count} instructions", "{count} Instruktionen"),
    "group.fused_instructions": ("fused, {count} instructions", "fusioniert, {count} Instruktionen"),
    # Whole sentences in the panes.
    "text.no_layer": ("this item belongs to no layer (created by XLA)",
                      "dieses Element gehört zu keiner Schicht (von XLA erzeugt)"),
    "text.nothing_captured": ("nothing captured yet", "noch nichts erfasst"),
    "text.program_argument": ("the compiled program's argument, not a layer's work",
                              "ein Argument des kompilierten Programms, keine Arbeit einer Schicht"),
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
    "text.tour_answer_select": ("[ ] move the selection above   a answer with it",
                                "[ ] Auswahl oben bewegen   a damit antworten"),
    "text.tour_answer_other": ("a answer", "a antworten"),
    "text.tour_choices": ("Choose one of: {choices}", "Zur Wahl: {choices}"),
    "text.glossary_placeholder": ("search terms and definitions", "Begriffe und Definitionen durchsuchen"),
    "text.code_view_title": ("{title} ({index}/{count}, v switches)", "{title} ({index}/{count}, v wechselt)"),
    "text.radius_first": ("radius {radius} ({count} nodes, first {shown})",
                          "Radius {radius} ({count} Knoten, die ersten {shown})"),
    "text.memory_header": ("peak {peak} bytes, {count} allocations", "Spitze {peak} Bytes, {count} Allokationen"),
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
    "compare.row.decided": ("decided", "entschieden"),
    "compare.row.vector_code": ("vector code", "Vektorcode"),
    "compare.decided": ("{compiler} made {count}: {items}", "{compiler} erzeugte {count}: {items}"),
    "compare.vector_registers": ("{count} vector registers", "{count} Vektorregister"),
    "compare.row.fusions_ops": ("fusions/ops", "Fusionen/Ops"),
    "compare.row.kernels": ("kernels", "Kernel"),
    "compare.row.library_calls": ("library calls", "Bibliotheksaufrufe"),
    "compare.row.layouts": ("layouts", "Layouts"),
    "compare.row.bytes_padded": ("bytes / padded", "Bytes / aufgefüllt"),
    "compare.row.flops": ("FLOPs", "FLOPs"),
    "compare.row.est_time": ("est. time", "gesch. Zeit"),
    "compare.row.fusions": ("fusions", "Fusionen"),
    "compare.row.peak_memory": ("peak memory", "Spitzenbedarf an Speicher"),
    "compare.row.bytes_accessed": ("bytes accessed", "gelesene und geschriebene Bytes"),
    "compare.row.xla_optimal_time": ("XLA optimal time", "optimale Zeit laut XLA"),
    "compare.cost_analysis": ("cost analysis", "Kostenanalyse"),
    "compare.shapes": ("shapes", "Formen"),
    "compare.steps": ("steps", "Schritte"),
    "compare.mem_comp": ("{memory} mem, {compute} comp", "{memory} Speicher, {compute} Rechnen"),
    "compare.none": ("none", "keine"),
    "compare.symbol_not_recorded": ("symbol not recorded", "Symbol nicht aufgezeichnet"),
    "compare.also": ("also", "auch"),
    "compare.memory": ("memory", "speicher"),
    "compare.compute": ("compute", "rechen"),
    "compare.no_instruction": ("no optimized-HLO instruction carries this layer's ops",
                               "keine Instruktion des optimierten HLO trägt die Ops dieser Schicht"),
    "compare.no_peaks": ("no peak figures", "keine Spitzenwerte"),
    "compare.bound": ("{count} {kind}-bound", "{count} {kind}gebunden"),
    "compare.see_below": ("{status} (see below)", "{status} (siehe unten)"),
    # Mesh view (`D`): explorer.views.mesh.
    "mesh.title": ("Devices: who holds which slice", "Geräte: wer welchen Ausschnitt hält"),
    "mesh.heading": ("{target} on a {mesh} mesh, {shard} parallel; rows: data axis, columns: model axis",
                     "{target} auf einem {mesh}-Gitter, {shard}-parallel; Zeilen: Datenachse, Spalten: Modellachse"),
    "mesh.none": ("No mesh here: capture with --mesh (e.g. `tensorweg capture MODEL --targets tpu:v5e "
                  "--mesh 2x2 --shard model`) to see the layer divided over devices.",
                  "Kein Gitter: Mit --mesh erfassen (z. B. `tensorweg capture MODELL --targets tpu:v5e "
                  "--mesh 2x2 --shard model`), um die Schicht auf Geräte verteilt zu sehen."),
    "mesh.empty": ("No sharded value of this layer in the module after sharding propagation.",
                   "Kein verteilter Wert dieser Schicht im Modul nach der Sharding-Propagation."),
    "mesh.source": ("Slices: XLA's HloSharding of each value after sharding propagation (shardy-xla), "
                    "as `jax.debug.visualize_sharding` draws them. "
                    "d<n>: the mesh's device n (XLA's logical device number).",
                    "Ausschnitte: XLAs HloSharding jedes Werts nach der Sharding-Propagation (shardy-xla), "
                    "wie `jax.debug.visualize_sharding` sie zeichnet. "
                    "d<n>: Gerät n des Gitters (die logische Gerätenummer von XLA)."),
    "mesh.row": ("data {index}", "Daten {index}"),
    "mesh.column": ("model {index}", "Modell {index}"),
    "mesh.kind.weight": ("weight", "Gewicht"),
    "mesh.kind.activation": ("activation", "Aktivierung"),
    "mesh.split_dim": ("dim {dim} in {parts} parts", "Dim. {dim} in {parts} Teilen"),
    "mesh.copies": ("each part on {copies} devices", "jeder Teil auf {copies} Geräten"),
    "mesh.replicated": ("replicated: all {devices} devices hold all of it",
                        "repliziert: alle {devices} Geräte halten alles"),
    "mesh.keys": ("n/p layer, Esc back", "n/p Schicht, Esc zurück"),
    # Mesh view: which device is which chip (explorer.views.mesh.device_name, devices_note).
    "mesh.chip": ("d{logical} = chip ({coords}), id {id}", "d{logical} = Chip ({coords}), ID {id}"),
    "mesh.device_id": ("d{logical} = device id {id}", "d{logical} = Geräte-ID {id}"),
    "mesh.slice": ("The slice as its chips lie (x across, y down): which d<n> sits where",
                   "Der Slice, wie seine Chips liegen (x quer, y abwärts): welches d<n> wo sitzt"),
    "mesh.devices_note": ("d<n>: XLA's logical device number, the device's place in the mesh (row by row); "
                          "chip (x,y): where that chip sits in the slice, id: its device id "
                          "(both from the compile-only topology the step was compiled for).",
                          "d<n>: die logische Gerätenummer von XLA, der Platz des Geräts im Gitter (zeilenweise); "
                          "Chip (x,y): wo dieser Chip im Slice sitzt, ID: seine Geräte-ID "
                          "(beides aus der Compile-only-Topologie, für die der Schritt kompiliert wurde)."),
    "mesh.no_coords": ("{target}: XLA's compile-only devices have ids and a (slice, host, GPU) index but no "
                       "place on the board, so where each GPU sits is NOT known; d<n> is the device's place in "
                       "the mesh (row by row).",
                       "{target}: Die Compile-only-Geräte von XLA haben IDs und einen Index (Slice, Host, GPU), "
                       "aber keinen Platz auf der Platine; wo jede GPU sitzt, ist also NICHT bekannt; d<n> ist der "
                       "Platz des Geräts im Gitter (zeilenweise)."),
    "mesh.devices_unknown": ("This capture did not record its devices: capture it again to see which chip "
                             "each d<n> is.",
                             "Diese Erfassung hat ihre Geräte nicht festgehalten: erneut erfassen, um zu sehen, "
                             "welcher Chip jedes d<n> ist."),
    # Compare screen: "1 chip vs 2x2 vs 4x4" (explorer.views.comparison_mesh).
    "compare.mesh.title": ("Layer {layer} on {target}: 1 chip vs 2x2 vs 4x4, per device",
                           "Schicht {layer} auf {target}: 1 Chip gegen 2x2 gegen 4x4, je Gerät"),
    "compare.mesh.one_chip": ("1 chip", "1 Chip"),
    "compare.mesh.shard": ("{shard} parallel", "{shard}-parallel"),
    "compare.mesh.per_device_shapes": ("shapes per device", "Formen je Gerät"),
    "compare.mesh.layer_bytes": ("layer bytes per device", "Bytes der Schicht je Gerät"),
    "compare.mesh.collectives": ("collectives", "Kollektive"),
    "compare.mesh.peak": ("peak per device", "Spitze je Gerät"),
    "compare.mesh.groups": ("groups", "Gruppen"),
    "compare.mesh.fits": ("fits in", "passt in"),
    "compare.mesh.does_not_fit": ("does NOT fit in", "passt NICHT in"),
    "compare.mesh.no_collectives": ("none: no device waits for another", "keine: kein Gerät wartet auf ein anderes"),
    "compare.mesh.not_captured": ("not captured: press M, or run: {note}",
                                  "nicht erfasst: M drücken oder ausführen: {note}"),
    "compare.mesh.cannot": ("cannot be compiled: {note}", "nicht kompilierbar: {note}"),
    "compare.mesh.capturing": ("capturing (compile-only)...", "wird erfasst (nur kompiliert) ..."),
    "compare.mesh.note": ("Collective times are ring ESTIMATES (bytes each device sends / the chip's link "
                          "bandwidth), never measurements; peaks are memory_analysis of the whole step per device. "
                          "Each mesh is its own compile-only capture.",
                          "Zeiten der Kollektive sind Ring-SCHÄTZUNGEN (Bytes, die jedes Gerät sendet / "
                          "Bandbreite der Verbindung des Chips), nie Messungen; Spitzen sind memory_analysis des "
                          "ganzen Schritts je Gerät. Jedes Gitter ist eine eigene Erfassung nur zum Kompilieren."),
    # Footer binding descriptions (short) and their help texts (tooltips), by binding id.
    "binding.app.level1": ("Layers", "Schichten"),
    "binding.app.mesh": ("Devices", "Geräte"),
    "tooltip.app.mesh": ("Which device holds which slice of the selected layer's weights and output (--mesh captures)",
                         "Welches Gerät welchen Ausschnitt der Gewichte und der Ausgabe der gewählten Schicht hält "
                         "(Erfassungen mit --mesh)"),
    "binding.mesh.close": ("Back", "Zurück"),
    "tooltip.mesh.close": ("Close the mesh view", "Die Geräteansicht schließen"),
    "binding.mesh.next_layer": ("Next layer", "Nächste Schicht"),
    "tooltip.mesh.next_layer": ("Show the next layer's slices", "Die Ausschnitte der nächsten Schicht zeigen"),
    "binding.mesh.previous_layer": ("Prev layer", "Vorige Schicht"),
    "tooltip.mesh.previous_layer": ("Show the previous layer's slices", "Die Ausschnitte der vorigen Schicht zeigen"),
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
    "binding.app.passes": ("Passes", "Pässe"),
    "binding.passes.film": ("Grappler/XLA", "Grappler/XLA"),
    "binding.app.interrupt": ("Quit", "Beenden"),
    "binding.app.maximize": ("Zoom", "Zoom"),
    "binding.level.filter": ("Filter", "Filtern"),
    "binding.level.down": ("Down", "Hinunter"),
    "binding.level.back": ("Back", "Zurück"),
    "binding.items.fold": ("Fold", "Falten"),
    "binding.graph.toggle": ("Graph", "Graph"),
    "binding.graph.wider": ("Radius+", "Radius+"),
    "binding.graph.narrower": ("Radius-", "Radius-"),
    "binding.kernels.view": ("Code view", "Code-Ansicht"),
    "binding.hlo.operand": ("Operand", "Operand"),
    "binding.memory.back": ("Back", "Zurück"),
    "binding.compare.close": ("Close", "Schließen"),
    "binding.compare.next_layer": ("Next layer", "Nächste Schicht"),
    "binding.compare.previous_layer": ("Prev layer", "Vorige Schicht"),
    "binding.compare.capture_meshes": ("Capture meshes", "Gitter erfassen"),
    "binding.tour.next": ("Next step", "Nächster Schritt"),
    "binding.tour.previous": ("Previous step", "Voriger Schritt"),
    "binding.tour.leave": ("Leave tour", "Führung verlassen"),
    "binding.tour.language": ("Lang", "Sprache"),
    "binding.tour.glossary": ("Glossary", "Glossar"),
    "binding.tour.answer": ("Answer", "Antworten"),
    "binding.tour.next_item": ("Next item", "Nächstes Element"),
    "binding.tour.previous_item": ("Previous item", "Voriges Element"),
    "binding.tours.close": ("Close", "Schließen"),
    "binding.glossary.close": ("Close", "Schließen"),
    "binding.glossary.next": ("Next term", "Nächster Begriff"),
    "binding.glossary.previous": ("Previous term", "Voriger Begriff"),
    "binding.help.close": ("Close", "Schließen"),
    "binding.code.down": ("Down", "Runter"),
    "binding.code.up": ("Up", "Hoch"),
    "binding.code.pagedown": ("Page down", "Seite runter"),
    "binding.code.pageup": ("Page up", "Seite hoch"),
    "binding.code.right": ("Right", "Rechts"),
    "binding.code.left": ("Left", "Links"),
    "binding.code.home": ("Line start", "Zeilenanfang"),
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
    "tooltip.passes.film": ("Switch between Grappler's film (the TensorFlow graph) and the XLA passes",
                            "Zwischen Grapplers Film (TensorFlow-Graph) und den XLA-Pässen wechseln"),
    "tooltip.app.passes": ("The compiler's passes one by one (needs --passes)",
                           "Die Pässe des Compilers einzeln (braucht --passes)"),
    "tooltip.app.compare": ("The selected layer on every target side by side: fusions, kernels, layouts, est. time",
                            "Die gewählte Schicht auf allen Zielen nebeneinander: Fusionen, Kernel, "
                            "Layouts, gesch. Zeit"),
    "tooltip.app.interrupt": ("Quit tensorweg (cancels a capture in progress)",
                              "tensorweg beenden (bricht eine laufende Erfassung ab)"),
    "tooltip.app.maximize": ("Maximise the focused pane to the whole screen, or restore it (Tab moves the focus)",
                             "Den fokussierten Bereich auf den ganzen Bildschirm vergrößern oder zurücksetzen "
                             "(Tab setzt den Fokus)"),
    "tooltip.items.fold": ("Fold or unfold the group the cursor is in (parameters, constants, a computation)",
                           "Die Gruppe am Cursor zu- oder aufklappen (Parameter, Konstanten, eine Berechnung)"),
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
    "tooltip.kernels.view": ("Cycle assembly or PTX / SASS / LLVM IR / optimized LLVM IR",
                             "Wechseln zwischen Assembler oder PTX / SASS / LLVM-IR / optimiertem LLVM-IR"),
    "tooltip.hlo.operand": ("Jump to the definition of the selection's first operand (Backspace returns)",
                            "Zur Definition des ersten Operanden der Auswahl springen (Rücktaste kehrt zurück)"),
    "tooltip.memory.back": ("Back to the screen the memory map was opened from",
                            "Zurück zur Ansicht, aus der die Speicherkarte geöffnet wurde"),
    "tooltip.compare.close": ("Close the comparison and return to the level screen",
                              "Den Vergleich schließen und zur Ebenenansicht zurückkehren"),
    "tooltip.compare.capture_meshes": ("Compile the 1-chip, 2x2 and 4x4 captures this comparison lacks "
                                       "(compile-only, into the cache)",
                                       "Die fehlenden Erfassungen für 1 Chip, 2x2 und 4x4 kompilieren "
                                       "(nur kompiliert, in den Cache)"),
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
    "tooltip.tour.answer": ("Answer the step's question (a select question takes the item selected above)",
                            "Die Frage des Schritts beantworten (eine Auswahlfrage nimmt das oben gewählte Element)"),
    "tooltip.tour.next_item": ("Select the next item of the level above (to answer a select question)",
                               "Das nächste Element der Ebene oben wählen (für eine Auswahlfrage)"),
    "tooltip.tour.previous_item": ("Select the previous item of the level above (to answer a select question)",
                                   "Das vorige Element der Ebene oben wählen (für eine Auswahlfrage)"),
    "tours.needs": ("needs the capture {options}, made by: {command}",
                    "braucht die Erfassung {options}, die dieser Befehl macht: {command}"),
    "tooltip.tours.close": ("Close the tour list", "Die Liste der Führungen schließen"),
    "tooltip.glossary.close": ("Close the glossary", "Das Glossar schließen"),
    "tooltip.glossary.next": ("Highlight the next term in the list", "Den nächsten Begriff der Liste markieren"),
    "tooltip.glossary.previous": ("Highlight the previous term in the list", "Den vorigen Begriff der Liste markieren"),
    "tooltip.help.close": ("Close the help", "Die Hilfe schließen"),
    "tooltip.code.down": ("Scroll the code down", "Den Code nach unten rollen"),
    "tooltip.code.up": ("Scroll the code up", "Den Code nach oben rollen"),
    "tooltip.code.pagedown": ("Scroll the code a page down", "Den Code eine Seite nach unten rollen"),
    "tooltip.code.pageup": ("Scroll the code a page up", "Den Code eine Seite nach oben rollen"),
    "tooltip.code.right": ("Scroll the code right, to the end of long lines",
                           "Den Code nach rechts rollen, bis zum Ende langer Zeilen"),
    "tooltip.code.left": ("Scroll the code left", "Den Code nach links rollen"),
    "tooltip.code.home": ("Scroll back to the start of the lines", "Zurück zum Anfang der Zeilen rollen"),
    # Textual's own keys (lists, inputs, tabs, scrolling), by action: the footer and `?` list them too.
    "textual.quit": ("Quit", "Beenden"),
    "textual.command_palette": ("palette", "Befehle"),
    "tooltip.textual.quit": ("Quit the app and return to the command prompt",
                             "Die App beenden und zur Eingabeaufforderung zurückkehren"),
    "tooltip.textual.command_palette": ("Open the command palette", "Die Befehlspalette öffnen"),
    "textual.app.focus_next": ("Focus Next", "Fokus weiter"),
    "textual.app.focus_previous": ("Focus Previous", "Fokus zurück"),
    "textual.screen.copy_text": ("Copy selected text", "Auswahl kopieren"),
    "textual.copy": ("Copy selected text", "Auswahl kopieren"),
    "textual.cut": ("Cut selected text", "Auswahl ausschneiden"),
    "textual.paste": ("Paste text from the clipboard", "Text aus der Zwischenablage einfügen"),
    "textual.select_all": ("Select all", "Alles auswählen"),
    "textual.submit": ("Submit", "Absenden"),
    "textual.select": ("Select", "Auswählen"),
    "textual.select_cursor": ("Select", "Auswählen"),
    "textual.first": ("First", "Erster"),
    "textual.last": ("Last", "Letzter"),
    "textual.cursor_up": ("Cursor up", "Cursor hoch"),
    "textual.cursor_down": ("Cursor down", "Cursor runter"),
    "textual.cursor_left": ("Cursor left", "Cursor links"),
    "textual.cursor_right": ("Cursor right", "Cursor rechts"),
    "textual.cursor_left(True)": ("Move cursor left and select", "Cursor nach links, mit Auswahl"),
    "textual.cursor_right(True)": ("Move cursor right and select", "Cursor nach rechts, mit Auswahl"),
    "textual.cursor_left_word": ("Move cursor left a word", "Cursor ein Wort nach links"),
    "textual.cursor_right_word": ("Move cursor right a word", "Cursor ein Wort nach rechts"),
    "textual.cursor_left_word(True)": ("Move cursor left a word and select",
                                       "Cursor ein Wort nach links, mit Auswahl"),
    "textual.cursor_right_word(True)": ("Move cursor right a word and select",
                                        "Cursor ein Wort nach rechts, mit Auswahl"),
    "textual.delete_left": ("Delete character left", "Zeichen links löschen"),
    "textual.delete_right": ("Delete character right", "Zeichen rechts löschen"),
    "textual.delete_left_all": ("Delete all to the left", "Alles links löschen"),
    "textual.delete_right_all": ("Delete all to the right", "Alles rechts löschen"),
    "textual.delete_left_word": ("Delete left to start of word", "Links bis zum Wortanfang löschen"),
    "textual.delete_right_word": ("Delete right to start of word", "Rechts bis zum Wortanfang löschen"),
    "textual.home": ("Go to start", "Zum Anfang"),
    "textual.end": ("Go to end", "Zum Ende"),
    "textual.home(True)": ("Select line start", "Bis Zeilenanfang auswählen"),
    "textual.end(True)": ("Select line end", "Bis Zeilenende auswählen"),
    "textual.next_tab": ("Next tab", "Nächster Reiter"),
    "textual.previous_tab": ("Previous tab", "Voriger Reiter"),
    "textual.page_up": ("Page up", "Seite hoch"),
    "textual.page_down": ("Page down", "Seite runter"),
    "textual.page_left": ("Page Left", "Seite links"),
    "textual.page_right": ("Page Right", "Seite rechts"),
    "textual.scroll_up": ("Scroll Up", "Nach oben rollen"),
    "textual.scroll_down": ("Scroll Down", "Nach unten rollen"),
    "textual.scroll_left": ("Scroll Left", "Nach links rollen"),
    "textual.scroll_right": ("Scroll Right", "Nach rechts rollen"),
    "textual.scroll_home": ("Scroll Home", "Zum Anfang rollen"),
    "textual.scroll_end": ("Scroll End", "Zum Ende rollen"),
    "textual.scroll_top": ("Top", "Anfang"),
    "textual.scroll_bottom": ("Bottom", "Ende"),
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
    # tensorweg handout: the page's own words (the lesson's texts come from the tour).
    "handout.model": ("Model", "Modell"),
    "handout.targets": ("Targets", "Ziele"),
    "handout.hint": ("Hint", "Tipp"),
    "handout.command": ("To see this screen:", "So erscheint diese Ansicht:"),
    "handout.selects_nothing": ("(selects nothing in this capture)", "(wählt in dieser Erfassung nichts aus)"),
    # tensorweg serve --allow-capture: a tab's capture waiting for one of the server's slots.
    "text.capture_waiting": ("capture waiting for a slot: {ahead} ahead ({running} of {slots} running); C cancels",
                             "Erfassung wartet auf einen Platz: {ahead} davor ({running} von {slots} laufen); "
                             "C bricht ab"),
    "notify.capture_waiting": ("This capture already waits for a slot; C cancels it.",
                               "Diese Erfassung wartet schon auf einen Platz; C bricht sie ab."),
    "binding.app.cancel_capture": ("Cancel capture", "Erfassung abbrechen"),
    "tooltip.app.cancel_capture": ("Stop the capture, or give up its place in the server's queue",
                                   "Die Erfassung beenden oder ihren Platz in der Warteschlange des Servers aufgeben"),
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
    "help.mesh": (
        "One grid per tensor of the selected layer (its weights, then its output): rows are the mesh's data "
        "axis, columns its model axis. Each cell is the device at that position with the slice it holds: "
        "shape and bytes per device, then the index range of every dimension. The same range on several "
        "devices means the slice is copied there (replicated). The slices are XLA's own shardings after "
        "sharding propagation. n/p change the layer, arrows and PgUp/PgDn scroll, Esc or D closes.",
        "Ein Gitter je Tensor der gewählten Schicht (ihre Gewichte, dann ihre Ausgabe): Zeilen sind die "
        "Datenachse des Gitters, Spalten seine Modellachse. Jede Zelle ist das Gerät an dieser Stelle mit dem "
        "Ausschnitt, den es hält: Form und Bytes je Gerät, dann der Indexbereich jeder Dimension. Derselbe "
        "Bereich auf mehreren Geräten heißt, der Ausschnitt liegt dort in Kopie (repliziert). Die Ausschnitte "
        "sind die Shardings von XLA selbst nach der Sharding-Propagation. n/p wechseln die Schicht, Pfeile und "
        "Bild auf/ab scrollen, Esc oder D schließt."),
    "help.compare": (
        "Columns are targets (the bundle's, then the default ones it lacks, which say \"not captured\" and name "
        "the key and command that capture them); rows are what each compiler made of the layer: fusions and "
        "instructions, kernels, library calls, output layouts, bytes with and without tile padding, FLOPs and "
        "the roofline ESTIMATE. Below: the whole model per target, then the figures every estimate used. "
        "On a TPU or GPU-box target, also the layer per device on 1 chip, 2x2 and 4x4 (M captures the missing "
        "meshes, compile-only). n/p change the layer, arrows and PgUp/PgDn scroll, Esc or x closes.",
        "Spalten sind Ziele (die des Bundles, dann die fehlenden Standardziele, die \"nicht erfasst\" sagen und "
        "Taste und Befehl nennen, die sie erfassen); Zeilen zeigen, was jeder Compiler aus der Schicht gemacht "
        "hat: Fusionen und Instruktionen, Kernel, Bibliotheksaufrufe, Ausgabe-Layouts, Bytes mit und ohne "
        "Kachel-Auffüllung, FLOPs und die Roofline-SCHÄTZUNG. Darunter: das ganze Modell je Ziel, dann die "
        "Zahlen, die jede Schätzung verwendet. Auf einem TPU- oder GPU-Box-Ziel auch die Schicht je Gerät auf "
        "1 Chip, 2x2 und 4x4 (M erfasst die fehlenden Gitter, nur kompiliert). n/p wechseln die Schicht, "
        "Pfeiltasten und Bild auf/ab rollen, Esc oder x schließt."),
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
    # Opening large bundles and containers in the layer list (issue 12).
    "text.reading_target": ("reading its modules ...", "liest seine Module ..."),
    "binding.layers.open": ("Open", "Öffnen"),
    "tooltip.layers.open": ("Open or fold a container (a nested model or Sequential block) to its inner layers",
                            "Einen Container (ein verschachteltes Modell, einen Sequential-Block) auf seine "
                            "inneren Schichten öffnen oder zuklappen"),
    # The filmstrip (screens/passes.py, explorer/views/passes.py, `tensorweg passes`): its own words; pass,
    # pipeline, computation and instruction names stay as the compiler wrote them.
    "passes.column.pass": ("pass", "Pass"),
    "passes.column.instructions_before": ("instr. before", "Instr. vorher"),
    "passes.column.after": ("after", "nach"),
    "passes.column.fusions": ("fusions", "Fusionen"),
    "passes.column.temp_bytes": ("temp bytes", "Temp-Bytes"),
    "passes.column.pipeline": ("pipeline", "Pipeline"),
    "passes.column.optimizer": ("optimizer", "Optimierer"),
    "passes.column.nodes_before": ("nodes before", "Knoten vorher"),
    "passes.column.fused": ("fused", "fusioniert"),
    "passes.column.iteration": ("iteration", "Durchlauf"),
    "passes.iteration": ("iteration {number}", "Durchlauf {number}"),
    "passes.title": ("Filmstrip: {model} on {film}, {count} frames ({note})",
                     "Film: {model} auf {film}, {count} Bilder ({note})"),
    "passes.title_error": ("Filmstrip {film}: {error}", "Film {film}: {error}"),
    "passes.note_xla": ("XLA reports no time per pass", "XLA nennt keine Zeit pro Pass"),
    "passes.note_grappler": ("one frame per optimizer run that changed the graph",
                             "ein Bild pro Optimierer-Lauf, der den Graphen geändert hat"),
    "passes.grappler_film": ("Grappler (TensorFlow graph)", "Grappler (TensorFlow-Graph)"),
    "passes.no_bundle": ("no bundle is open yet", "noch kein Bundle geöffnet"),
    "passes.no_target": ("target {target} is not in this bundle (it has {targets})",
                         "Ziel {target} ist nicht in diesem Bundle (es hat {targets})"),
    "passes.no_passes": ("no per-pass snapshots for {target} in this bundle: capture it with --passes",
                         "keine Stände pro Pass für {target} in diesem Bundle: mit --passes erfassen"),
    "passes.no_grappler": ("no Grappler frames in this bundle: capture it with --passes",
                           "keine Grappler-Bilder in diesem Bundle: mit --passes erfassen"),
    "passes.before_any_pass": ("the module before any pass", "das Modul vor dem ersten Pass"),
    "passes.summary": ("+{added} -{removed} ~{changed} in {count} computations",
                       "+{added} -{removed} ~{changed} in {count} Berechnungen"),
    "passes.summary_one": ("+{added} -{removed} ~{changed} in 1 computation",
                           "+{added} -{removed} ~{changed} in 1 Berechnung"),
    "passes.describe": ("{name} (frame {number} of {last})", "{name} (Bild {number} von {last})"),
    "passes.describe_in": ("{name} in {pipeline} (frame {number} of {last})",
                           "{name} in {pipeline} (Bild {number} von {last})"),
    "passes.state.new": ("new", "neu"),
    "passes.state.gone": ("gone", "entfernt"),
    "passes.state.changed": ("changed", "geändert"),
    "passes.nothing_to_follow": ("Nothing selected to follow: select an instruction or layer first.",
                                 "Nichts zum Verfolgen ausgewählt: zuerst eine Instruktion oder Schicht auswählen."),
    "passes.unchanged": ("{name}: no pass changed it", "{name}: kein Pass hat es geändert"),
    "passes.text_header": ("{model} on {film}: {count} frames ({dumped} {what}; unchanged ones dropped)",
                           "{model} auf {film}: {count} Bilder ({dumped} {what}; unveränderte weggelassen)"),
    "passes.optimizer_runs": ("optimizer runs", "Optimierer-Läufe"),
    "passes.snapshots_dumped": ("snapshots dumped", "Stände geschrieben"),
    "passes.compile_time": ("per-pass compile time: not reported (XLA's dump carries none)",
                            "Übersetzungszeit pro Pass: nicht gemeldet (XLAs Dump enthält keine)"),
    "passes.grappler_time": ("per-optimizer time: not recorded (each optimizer is run on its own to see its graph)",
                             "Zeit pro Optimierer: nicht erfasst (jeder Optimierer läuft einzeln, um seinen "
                             "Graphen zu zeigen)"),
    "passes.frame_diff": ("frame {number}: {describe}: {summary}", "Bild {number}: {describe}: {summary}"),
    "passes.bad_frame": ("bad --frame {frame}: this filmstrip has frames 0 to {last}",
                         "ungültiges --frame {frame}: dieser Film hat die Bilder 0 bis {last}"),
    # Following one instruction through the film ({at}: the frame, as `passes.describe_in` words it).
    "passes.no_instruction": ("no instruction {name} in any frame of this filmstrip",
                              "keine Instruktion {name} in irgendeinem Bild dieses Films"),
    "passes.layer_without_instruction": ("layer {name} has no instruction in this filmstrip",
                                         "Schicht {name} hat keine Instruktion in diesem Film"),
    "passes.follow.created": ("{name} ({opcode}) created by {at}", "{name} ({opcode}) entstanden durch {at}"),
    "passes.follow.rewritten_as": ("{name} ({opcode}) rewritten as {new} ({what}) by {at}",
                                   "{name} ({opcode}) umgeschrieben zu {new} ({what}) durch {at}"),
    "passes.follow.recomputation_of": (
        "{name} ({opcode}) is the backward pass's recomputation of {twin} ({forward}): jax.checkpoint "
        "rematerialised it before any XLA pass",
        "{name} ({opcode}) ist die Neuberechnung von {twin} im Rückwärtsdurchlauf ({forward}): jax.checkpoint "
        "hat sie vor dem ersten XLA-Pass rematerialisiert"),
    "passes.follow.recomputation": (
        "{name} ({opcode}) is the backward pass's recomputation ({forward}): jax.checkpoint rematerialised it "
        "before any XLA pass",
        "{name} ({opcode}) ist eine Neuberechnung im Rückwärtsdurchlauf ({forward}): jax.checkpoint hat sie vor "
        "dem ersten XLA-Pass rematerialisiert"),
    "passes.follow.recomputed_as": (
        "{name} ({opcode}) is recomputed in the backward pass as {copy}: jax.checkpoint rematerialised it before "
        "any XLA pass",
        "{name} ({opcode}) wird im Rückwärtsdurchlauf als {copy} neu berechnet: jax.checkpoint hat es vor dem "
        "ersten XLA-Pass rematerialisiert"),
    "passes.follow.removed": ("{name} ({opcode}) removed by {at}", "{name} ({opcode}) entfernt durch {at}"),
    "passes.follow.fused": ("{name} ({opcode}) fused into {fusion} ({kind}) by {at}",
                            "{name} ({opcode}) fusioniert in {fusion} ({kind}) durch {at}"),
    "passes.follow.fused_with": ("{name} ({opcode}) fused into {fusion} ({kind}) with {partners} by {at}",
                                 "{name} ({opcode}) fusioniert in {fusion} ({kind}) mit {partners} durch {at}"),
    "passes.follow.moved": ("{name} ({opcode}) moved into {fusion} ({kind}) by {at}",
                            "{name} ({opcode}) verschoben in {fusion} ({kind}) durch {at}"),
    "passes.follow.moved_with": ("{name} ({opcode}) moved into {fusion} ({kind}) with {partners} by {at}",
                                 "{name} ({opcode}) verschoben in {fusion} ({kind}) mit {partners} durch {at}"),
    "passes.follow.calls": ("{name} now calls {target}, by {at}", "{name} ruft jetzt {target} auf, durch {at}"),
    "passes.follow.renamed": ("{old} renamed {name} by {at}", "{old} umbenannt in {name} durch {at}"),
    "passes.follow.feeds": ("{name}'s result feeds {fusion} ({kind}: {ops}) made by {at}",
                            "Das Ergebnis von {name} fließt in {fusion} ({kind}: {ops}), erzeugt durch {at}"),
    "passes.follow.layout": ("{name} layout {old} -> {new} by {at}", "{name} Layout {old} -> {new} durch {at}"),
    "passes.follow.became": ("{name} ({old}) became {new} by {at}", "{name} ({old}) wurde zu {new} durch {at}"),
    "passes.follow.changed": ("{name} changed by {at}", "{name} geändert durch {at}"),
    "binding.passes.close": ("Close", "Schließen"),
    "tooltip.passes.close": ("Close the filmstrip and return to the HLO level",
                             "Den Film schließen und zur HLO-Ebene zurückkehren"),
    "binding.passes.next": ("Next pass", "Nächster Pass"),
    "tooltip.passes.next": ("Show the next pass and its diff", "Den nächsten Pass und seinen Diff zeigen"),
    "binding.passes.previous": ("Prev pass", "Voriger Pass"),
    "tooltip.passes.previous": ("Show the previous pass and its diff", "Den vorigen Pass und seinen Diff zeigen"),
    "binding.passes.follow": ("Follow", "Verfolgen"),
    "tooltip.passes.follow": ("Follow the HLO level's selected instruction (or layer) to where it was fused or "
                              "rewritten",
                              "Die auf der HLO-Ebene ausgewählte Instruktion (oder Schicht) bis dorthin verfolgen, "
                              "wo sie fusioniert oder umgeschrieben wurde"),
    "help.passes": (
        "The filmstrip: the module after every compiler pass that changed it. Top: the passes in order "
        "(pipeline, pass, instructions before and after, fusions, temporary bytes where known). Below: the "
        "selected pass's narration and its diff (changed computations only; added lines green, removed red, "
        "changed as a red/green pair; side by side from 160 columns). n/p step, w follows the HLO level's "
        "selected instruction (or its layer) to the frame where it was fused or rewritten. g switches to "
        "Grappler's film (the TensorFlow graph after each Grappler optimizer that changed it) and back.",
        "Der Film: das Modul nach jedem Pass des Compilers, der es geändert hat. Oben: die Pässe der Reihe "
        "nach (Pipeline, Pass, Instruktionen vorher und nachher, Fusionen, temporäre Bytes, wo bekannt). "
        "Darunter: der Text zum ausgewählten Pass und sein Diff (nur geänderte Berechnungen; hinzugefügte "
        "Zeilen grün, entfernte rot, geänderte als rot-grünes Paar; ab 160 Spalten nebeneinander). n/p "
        "blättern, w verfolgt die auf der HLO-Ebene ausgewählte Instruktion (oder ihre Schicht) bis zu dem "
        "Bild, in dem sie fusioniert oder umgeschrieben wurde. g wechselt zu Grapplers Film (der "
        "TensorFlow-Graph nach jedem Grappler-Optimierer, der ihn geändert hat) und zurück."),
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
