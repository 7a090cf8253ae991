"""The compare screen, the filmstrip (passes) and the mesh view: headers, cells and notes."""

# key -> (English, German)
LABELS: dict[str, tuple[str, str]] = {
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
    "compare.lanes": ("{lanes} x {bits}-bit lanes", "{lanes} x {bits}-Bit-Lanes"),
    "compare.instructions": ("{count} instructions", "{count} Befehle"),
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
    # Compare screen: "1 chip vs 2x2 vs 4x4" (explorer.views.compare.mesh).
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
    "compare.mesh.no_collectives": ("none: no device waits for another", "keine: Kein Gerät wartet auf ein anderes"),
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
    "passes.missing_title": ("Filmstrip {film}: not captured", "Film {film}: nicht erfasst"),
    "passes.capture_with": ("Capture the frames and open them with:", "Erfassen und öffnen Sie die Bilder mit:"),
    "passes.install_then_capture": ("{install}; then capture the frames and open them with:",
                                    "{install}; danach erfassen und öffnen Sie die Bilder mit:"),
    "passes.capturing": ("Capturing the model again with every pass kept (--passes): the film opens here when "
                         "it is done.",
                         "Das Modell wird erneut erfasst, mit jedem Pass (--passes): Der Film öffnet sich hier, "
                         "wenn es fertig ist."),
    "passes.capture_key": ("Press c to capture them now (the model is compiled again, with --passes).",
                           "Drücken Sie c, um sie jetzt zu erfassen (das Modell wird erneut kompiliert, "
                           "mit --passes)."),
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
    "passes.unchanged": ("{name}: no pass changed it", "{name}: Kein Pass hat es geändert"),
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
                         "ungültiges --frame {frame}: Dieser Film hat die Bilder 0 bis {last}"),
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
}
