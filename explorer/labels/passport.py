"""The passport's words (`tensorweg passport`, the `P` screen, its Markdown and HTML): hop titles,
evidence, the notes that say where a hop is a heuristic or cannot be recovered."""

# key -> (English, German)
LABELS: dict[str, tuple[str, str]] = {
    "passport.title": ("Passport of {layer} on {target}", "Steckbrief von {layer} auf {target}"),
    "passport.title_item": ("Passport of {item} ({level}) on {target}", "Steckbrief von {item} ({level}) auf {target}"),
    "passport.keys": ("Enter go to the hop's level, t other target, Esc back",
                      "Enter zur Ebene des Schritts, t anderes Ziel, Esc zurück"),
    "passport.evidence": ("evidence", "Beleg"),
    "passport.heuristic": ("heuristic", "Heuristik"),
    "passport.hop.python": ("Python", "Python"),
    "passport.hop.layers": ("Keras layer", "Keras-Schicht"),
    "passport.hop.graph": ("TensorFlow ops", "TensorFlow-Ops"),
    "passport.hop.hlo": ("HLO instructions", "HLO-Instruktionen"),
    "passport.hop.optimized-hlo": ("fusion that computes it", "Fusion, die ihn berechnet"),
    "passport.hop.kernels": ("kernel", "Kernel"),
    "passport.hop.machine-code": ("machine code", "Maschinencode"),
    "passport.hop.memory": ("buffer", "Puffer"),
    "passport.ev.stack_frames": ("op metadata: stack_frame_id and the module's stack-frame tables",
                                 "Op-Metadaten: stack_frame_id und die Stack-Frame-Tabellen des Moduls"),
    "passport.ev.op_traceback": ("the TensorFlow op's traceback, recorded while tracing (graph.json), named by "
                                 "the instruction's op_name",
                                 "der Traceback der TensorFlow-Op, beim Tracing aufgezeichnet (graph.json), "
                                 "benannt durch op_name der Instruktion"),
    "passport.ev.call_site": ("where your function called the layer, recorded while it ran (layers.json)",
                              "wo Ihre Funktion die Schicht aufrief, aufgezeichnet während sie lief (layers.json)"),
    "passport.python_yours": ("your line", "Ihre Zeile"),
    "passport.ev.layers": ("layers.json (Keras's own summary)", "layers.json (Keras' eigene Übersicht)"),
    "passport.ev.index": ("cross-level index (name scopes, op_name metadata)",
                          "ebenenübergreifender Index (Namensräume, op_name-Metadaten)"),
    "passport.ev.fusion": ("cross-level index, the optimized module's fusion body",
                           "ebenenübergreifender Index, Rumpf der Fusion im optimierten Modul"),
    "passport.ev.data_flow": ("data flow in the optimized module (who reads the result), layers.json's edges, the "
                              "cross-level index", "Datenfluss im optimierten Modul (wer das Ergebnis liest), die "
                              "Kanten aus layers.json, der ebenenübergreifende Index"),
    "passport.ev.kernel": ("kernel record (the HLO instruction it implements)",
                           "Kernel-Eintrag (die HLO-Instruktion, die er umsetzt)"),
    "passport.ev.asm": ("registers read off the assembly", "Register aus dem Assembler gelesen"),
    "passport.ev.sass": ("registers read off the SASS (ptxas, cuobjdump)",
                         "Register aus dem SASS gelesen (ptxas, cuobjdump)"),
    "passport.ev.layout": ("the layout XLA wrote on the instruction's shape",
                           "das Layout, das XLA an die Form der Instruktion schrieb"),
    "passport.ev.buffers": ("buffer assignment (XLA's dump)", "Pufferzuweisung (XLA-Dump)"),
    "passport.h.python_other_target": (
        "TensorFlow's op metadata names only where TensorFlow creates every op ({where}); these Keras lines "
        "are read from {target}'s module (Keras on JAX runs the same layer code; the backend lines differ)",
        "Die Op-Metadaten von TensorFlow nennen nur die Stelle, an der TensorFlow jede Op erzeugt ({where}); "
        "diese Keras-Zeilen stammen aus dem Modul von {target} (Keras auf JAX führt denselben Schichtcode aus; "
        "die Backend-Zeilen unterscheiden sich)"),
    "passport.h.output": ("no data flow tells the layer's output here: it is taken as its last instruction in "
                          "program order that does work",
                          "Kein Datenfluss zeigt hier die Ausgabe der Schicht: Als Ausgabe gilt ihre letzte "
                          "arbeitende Instruktion in Programmreihenfolge"),
    "passport.output.consumer": ("{layer}'s output: {tensor}'s result is read by {reader} of {fed}, the layer it feeds",
                                 "Ausgabe von {layer}: Das Ergebnis von {tensor} liest {reader} von {fed}, der "
                                 "Schicht, die sie speist"),
    "passport.output.result": ("{layer}'s output: {tensor} is the module's result",
                               "Ausgabe von {layer}: {tensor} ist das Ergebnis des Moduls"),
    "passport.output.fused": ("{layer}'s output is never written to memory on its own: it is computed inside "
                              "{tensor}, together with {fed}, the layer it feeds",
                              "Die Ausgabe von {layer} wird nie eigens in den Speicher geschrieben: Sie entsteht "
                              "in {tensor}, zusammen mit {fed}, der Schicht, die sie speist"),
    "passport.buffer.fused": ("{layer}'s output has no buffer of its own: this one holds {tensor}'s result, "
                              "computed with {fed}",
                              "Die Ausgabe von {layer} hat keinen eigenen Puffer: Dieser hält das Ergebnis von "
                              "{tensor}, berechnet mit {fed}"),
    "passport.output.other_count": ("Keras's output {shape} has another element count than {tensor}'s result "
                                    "(XLA padded or reshaped its dimensions, or it holds more than this layer's "
                                    "tensor)",
                                    "Die Keras-Ausgabe {shape} hat eine andere Elementzahl als das Ergebnis von "
                                    "{tensor} (XLA hat seine Dimensionen aufgefüllt oder umgeformt, oder es hält "
                                    "mehr als den Tensor dieser Schicht)"),
    "passport.h.lines": ("which lines touch this tensor is read off the mnemonics and operands; "
                         "the machine code names no tensors",
                         "Welche Zeilen diesen Tensor berühren, ist aus Mnemonics und Operanden gelesen; "
                         "der Maschinencode nennt keine Tensoren"),
    "passport.h.went": ("the tensor is followed to the nearest earlier layer that computes one",
                        "Der Tensor wird bis zur nächsten früheren Schicht verfolgt, die einen berechnet"),
    "passport.no.python": ("not recoverable: this module carries no Python locations ({why})",
                           "nicht rekonstruierbar: Dieses Modul trägt keine Python-Orte ({why})"),
    "passport.no.python_tf": ("TensorFlow's metadata names only {where}",
                              "die Metadaten von TensorFlow nennen nur {where}"),
    "passport.no.python_none": ("no source locations recorded", "keine Quellorte aufgezeichnet"),
    "passport.no.graph": ("no TensorFlow graph for this layer (an input, or the graph was not captured)",
                          "kein TensorFlow-Graph für diese Schicht (eine Eingabe, oder der Graph wurde "
                          "nicht erfasst)"),
    "passport.no.hlo": ("no HLO instruction", "keine HLO-Instruktion"),
    "passport.no.fusion": ("no instruction of its own after optimisation",
                           "nach der Optimierung keine eigene Instruktion"),
    "passport.no.kernel": ("no kernel: {why}", "kein Kernel: {why}"),
    "passport.no.kernel_inline": ("the instruction needs none (a parameter, a bitcast, a tuple element)",
                                  "Die Instruktion braucht keinen (ein Parameter, ein Bitcast, ein Tupel-Element)"),
    "passport.no.machine_library": ("a library call ({kernel}): its machine code is the library's, not recorded",
                                    "ein Bibliotheksaufruf ({kernel}): Sein Maschinencode gehört der Bibliothek "
                                    "und ist nicht aufgezeichnet"),
    "passport.no.machine": ("no machine code recorded for {kernel}", "kein Maschinencode für {kernel} aufgezeichnet"),
    "passport.no.buffer": ("no buffer assignment recorded", "keine Pufferzuweisung aufgezeichnet"),
    "passport.no.computation": ("{layer} produced no computation of its own: {where}",
                                "{layer} erzeugte keine eigene Berechnung: {where}"),
    "passport.went.parameter": ("it arrives as entry parameter {number} ({name})",
                                "Er kommt als Eingangsparameter {number} ({name}) an"),
    "passport.went.bitcast": ("its HLO ({hlo}) became a bitcast: the same bytes as {source}'s output ({tensor})",
                              "Sein HLO ({hlo}) wurde zum Bitcast: dieselben Bytes wie die Ausgabe von "
                              "{source} ({tensor})"),
    "passport.went.folded": ("its HLO ({hlo}) left no instruction of its own (folded into what reads the tensor "
                             "before it): the first instruction of {fed} that reads {source}'s output ({tensor}), "
                             "past the compiler's own, is {reader}",
                             "Sein HLO ({hlo}) hinterließ keine eigene Instruktion (eingefaltet in das, was den "
                             "Tensor davor liest): Die erste Instruktion von {fed}, die die Ausgabe von {source} "
                             "({tensor}) liest, nach den eigenen des Compilers, ist {reader}"),
    "passport.went.folded_somewhere": ("its HLO ({hlo}) left no instruction of its own: XLA made it part of what "
                                       "reads {source}'s output ({tensor})",
                                       "Sein HLO ({hlo}) hinterließ keine eigene Instruktion: XLA machte es zu "
                                       "einem Teil dessen, was die Ausgabe von {source} ({tensor}) liest"),
    "passport.went.nowhere": ("nothing in the optimized module carries it", "Nichts im optimierten Modul trägt ihn"),
    "passport.python_version": ("the installed {package} is {installed}; the bundle was captured with {captured}: "
                                "lines may have moved",
                                "installiert ist {package} {installed}; das Bundle wurde mit {captured} erfasst: "
                                "Zeilen können sich verschoben haben"),
    "passport.python_unreadable": ("(source not installed here)", "(Quelle hier nicht installiert)"),
    "passport.emitted": ("emitted", "erzeugte"),
    "passport.fused": ("fused", "fusioniert"),
    "passport.loads": ("loads", "Laden"),
    "passport.stores": ("stores", "Speichern"),
    "passport.computes": ("computes", "Rechnen"),
    "passport.registers": ("registers", "Register"),
    "passport.addressing": ("addressing", "Adressierung"),
    "passport.per_thread": ("{count} registers per thread (ptxas -v)", "{count} Register je Thread (ptxas -v)"),
    "passport.scalar_lanes": ("scalar code: `s1` is lane 0 of NEON register v1 (v1.s[0]); XLA computes one 32-bit "
                              "lane at a time here, not the four a `.4s` instruction would",
                              "skalarer Code: `s1` ist Lane 0 des NEON-Registers v1 (v1.s[0]); XLA rechnet hier eine "
                              "32-Bit-Lane nach der anderen, nicht vier auf einmal wie ein `.4s`-Befehl"),
    "passport.tpu_code": ("XLA:TPU emits no inspectable machine code: the tensor's tiles and memory space "
                          "are what it shows", "XLA:TPU erzeugt keinen einsehbaren Maschinencode: Gezeigt werden "
                          "die Kacheln und der Speicherraum des Tensors"),
    "passport.tensor": ("tensor", "Tensor"),
    "passport.tuple_element": ("its tuple element {index}, {shape}; the other elements are buffers of their own",
                               "sein Tupelelement {index}, {shape}; die anderen Elemente sind eigene Puffer"),
    # The `P` screen's keys, status line and help.
    "binding.app.passport": ("Passport", "Steckbrief"),
    "tooltip.app.passport": ("The selected item's tensor from its Python line down to registers and buffer",
                             "Der Tensor des gewählten Elements von seiner Python-Zeile bis zu Registern und Puffer"),
    "binding.passport.close": ("Back", "Zurück"),
    "tooltip.passport.close": ("Close the passport", "Den Steckbrief schließen"),
    "binding.passport.target": ("Target", "Ziel"),
    "tooltip.passport.target": ("The same passport on the bundle's next target",
                                "Derselbe Steckbrief auf dem nächsten Ziel des Bundles"),
    "notify.passport_nowhere": ("This hop could not be recovered: there is nothing to go to.",
                                "Dieser Schritt ließ sich nicht rekonstruieren: Es gibt nichts, wohin es geht."),
    "help.passport": (
        "The passport follows one tensor down every hop: the Python lines that made it, the Keras layer, the "
        "TensorFlow ops, the HLO instructions, the fusion that computes it, the kernel, the machine-code lines "
        "that load, store and compute it with their registers (on a TPU its tiles and memory space), and the "
        "buffer it lives in. Each hop names its evidence and says where it is a heuristic. Enter goes to the "
        "hop's level with its item selected, t shows the same passport on the next target, Esc or P closes.",
        "Der Steckbrief folgt einem Tensor über jeden Schritt: die Python-Zeilen, die ihn erzeugten, die "
        "Keras-Schicht, die TensorFlow-Ops, die HLO-Instruktionen, die Fusion, die ihn berechnet, den "
        "Kernel, die Zeilen Maschinencode, die ihn laden, speichern und berechnen, mit ihren Registern (auf "
        "der TPU seine Kacheln und sein Speicherraum), und den Puffer, in dem er liegt. Jeder Schritt nennt "
        "seinen Beleg und sagt, wo er eine Heuristik ist. Enter geht zur Ebene des Schritts mit seinem "
        "Element gewählt, t zeigt denselben Steckbrief auf dem nächsten Ziel, Esc oder P schließt."),
    # `0`: the source view at the top of the trace (explorer/views/source_view.py, screens/source.py).
    "source.title": ("Python source of {layer} on {target}", "Python-Quelle von {layer} auf {target}"),
    "source.title_item": ("Python source of {item} ({level}) on {target}",
                          "Python-Quelle von {item} ({level}) auf {target}"),
    "source.keys": ("Enter go to the line's instructions, Esc back",
                    "Enter zu den Instruktionen der Zeile, Esc zurück"),
    "source.emits": ("emits", "erzeugt"),
    "source.reaches": ("reaches", "führt zu"),
    "source.empty": ("No Python lines recorded for this item.", "Für dieses Element sind keine Python-Zeilen "
                     "aufgezeichnet."),
    "binding.app.source": ("Source", "Quelle"),
    "tooltip.app.source": ("Level 0: the Python lines above the selected layer or HLO instruction",
                           "Ebene 0: die Python-Zeilen über der gewählten Schicht oder HLO-Instruktion"),
    "binding.source.close": ("Back", "Zurück"),
    "tooltip.source.close": ("Close the source view", "Die Quellansicht schließen"),
    "notify.source_nowhere": ("This line names no instruction: there is nothing to go to.",
                              "Diese Zeile nennt keine Instruktion: Es gibt nichts, wohin es geht."),
    "help.source": (
        "The source view (0, level 0 above the layers) shows the Python lines that made the selected layer's "
        "HLO instructions, or one HLO instruction's lines: your own line first for a module:function model, "
        "then Keras's layer call and the backend lines below it. Each line names the instructions it emitted "
        "or reached by calling further down. Enter goes to the line's first instruction on the HLO level; "
        "Esc or 0 closes. (Backspace already goes back from a descent, so level 0 has its own key.)",
        "Die Quellansicht (0, Ebene 0 über den Schichten) zeigt die Python-Zeilen, die die HLO-Instruktionen "
        "der gewählten Schicht erzeugten, oder die Zeilen einer HLO-Instruktion: bei einem Modell aus "
        "module:function zuerst Ihre eigene Zeile, dann den Schichtaufruf von Keras und die Backend-Zeilen "
        "darunter. Jede Zeile nennt die Instruktionen, die sie erzeugte oder über tiefere Aufrufe erreichte. "
        "Enter geht zur ersten Instruktion der Zeile auf der HLO-Ebene; Esc oder 0 schließt. (Die Rücktaste "
        "führt schon aus einem Abstieg zurück, deshalb hat Ebene 0 eine eigene Taste.)"),
}
