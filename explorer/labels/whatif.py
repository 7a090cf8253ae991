"""The what-if lab's words (the diff screen, `V`): English and German."""

from __future__ import annotations

LABELS: dict[str, tuple[str, str]] = {
    "whatif.title": ("What if", "Was wäre, wenn"),
    "whatif.this": ("this capture", "diese Erfassung"),
    "whatif.keys": ("v other variant, n/p layer, Esc closes", "v andere Variante, n/p Schicht, Esc schließt"),
    "whatif.layer": ("Layer {layer}: {first} vs {second}", "Schicht {layer}: {first} gegen {second}"),
    "whatif.model": ("The whole model", "Das ganze Modell"),
    "whatif.fusions": ("Fusions that changed (matched by the layers they compute; [ ] pick, Enter shows both HLO)",
                       "Geänderte Fusionen (zugeordnet über die Schichten, die sie berechnen; [ ] wählen, "
                       "Enter zeigt beide HLO)"),
    "whatif.fusion_pair": ("Fusions of {layers}", "Fusionen von {layers}"),
    "whatif.no_fusion": ("no fusion computes these layers here", "hier berechnet keine Fusion diese Schichten"),
    "binding.whatif.next_fusion": ("Next fusion", "Nächste Fusion"),
    "tooltip.whatif.next_fusion": ("Mark the next fusion that changed", "Die nächste geänderte Fusion markieren"),
    "binding.whatif.previous_fusion": ("Previous fusion", "Vorige Fusion"),
    "tooltip.whatif.previous_fusion": ("Mark the previous fusion that changed",
                                       "Die vorige geänderte Fusion markieren"),
    "binding.whatif.open_fusion": ("Both HLO", "Beide HLO"),
    "tooltip.whatif.open_fusion": ("The marked fusion's optimized HLO in both variants, side by side",
                                   "Das optimierte HLO der markierten Fusion in beiden Varianten nebeneinander"),
    "binding.whatif.close_pair": ("Close", "Schließen"),
    "tooltip.whatif.close_pair": ("Back to the diff", "Zurück zum Vergleich"),
    "whatif.no_fusion_change": ("none", "keine"),
    "whatif.skyline": ("Memory skyline: the bytes the buffer assignment holds over program order, parameters "
                       "included, a slot two values share once (one scale for both)",
                       "Speicher-Skyline: die Bytes, die die Pufferzuweisung in Programmreihenfolge belegt, "
                       "Parameter eingeschlossen, ein geteilter Platz einmal (ein Maßstab für beide)"),
    "whatif.no_skyline": ("no live ranges captured", "keine Lebensdauern erfasst"),
    "whatif.why": ("Why", "Warum"),
    "whatif.nothing": (
        "No other variant of this model is in the cache for {target}. To capture one, e.g. {todo}",
        "Im Cache liegt keine andere Variante dieses Modells für {target}. Um eine zu erfassen, z. B. {todo}"),
    "whatif.only_one": (
        "This is the only other variant in the cache. To capture more, e.g. {todo}",
        "Das ist die einzige andere Variante im Cache. Um weitere zu erfassen, z. B. {todo}"),
    "binding.app.whatif": ("What if", "Was wäre, wenn"),
    "tooltip.app.whatif": ("Another variant of this model (batch, dtype, a disabled pass) side by side: "
                           "what the compiler did differently, and why",
                           "Eine andere Variante dieses Modells (Batch, Elementtyp, ein abgeschalteter Pass) "
                           "daneben: was der Compiler anders gemacht hat, und warum"),
    "binding.whatif.close": ("Close", "Schließen"),
    "tooltip.whatif.close": ("Close the diff and return", "Den Vergleich schließen und zurückkehren"),
    "binding.whatif.next_variant": ("Other variant", "Andere Variante"),
    "tooltip.whatif.next_variant": ("The next cached variant of this model",
                                    "Die nächste Variante dieses Modells im Cache"),
    "binding.whatif.next_layer": ("Next layer", "Nächste Schicht"),
    "tooltip.whatif.next_layer": ("Show the next layer", "Die nächste Schicht zeigen"),
    "binding.whatif.previous_layer": ("Previous layer", "Vorige Schicht"),
    "tooltip.whatif.previous_layer": ("Show the previous layer", "Die vorige Schicht zeigen"),
    "binding.compare.whatif": ("What if", "Was wäre, wenn"),
    "tooltip.compare.whatif": ("This layer in another variant of the model, side by side",
                               "Diese Schicht in einer anderen Variante des Modells, daneben"),
    "help.whatif": (
        "Two variants of one model on the current target: this capture and another one from the cache "
        "(another batch, dtype policy or XLA flag; tensorweg diff MODEL --vary KEY=A,B captures them). "
        "Above: the selected layer's figures in both (A -> B where they changed), then the whole model, the "
        "fusions that changed, matched by the layers they compute ([ and ] mark one, Enter shows its HLO in both "
        "variants side by side), and the memory skyline of both: bytes "
        "live over program order on one scale, with the largest buffers live at each peak by role and layer. "
        "Below: why, for each kind of change. v shows the next variant, n/p change the layer, Esc closes.",
        "Zwei Varianten eines Modells auf dem aktuellen Ziel: diese Erfassung und eine andere aus dem Cache "
        "(anderer Batch, andere Dtype-Policy oder ein XLA-Flag; tensorweg diff MODELL --vary KEY=A,B erfasst "
        "sie). Oben: die Zahlen der gewählten Schicht in beiden (A -> B, wo sie sich ändern), dann das ganze "
        "Modell, die geänderten Fusionen, zugeordnet über die Schichten, die sie berechnen ([ und ] markieren "
        "eine, Enter zeigt ihr HLO in beiden Varianten nebeneinander), und die "
        "Speicher-Skyline beider: lebende Bytes in Programmreihenfolge in einem Maßstab, mit den größten "
        "Puffern an jeder Spitze nach Rolle und Schicht. Darunter: warum, für jede Art von Änderung. "
        "v zeigt die nächste Variante, n/p wechseln die Schicht, Esc schließt."),
    # `tensorweg diff` and the diff screen's tables (explorer.views.whatif.diff_text).
    "whatif.heading": ("{model} on {target}: {first} vs {second}", "{model} auf {target}: {first} gegen {second}"),
    "whatif.variant": ("variant {label}:", "Variante {label}:"),
    "whatif.col.model": ("model", "Modell"),
    "whatif.col.change": ("change", "Änderung"),
    "whatif.col.layer": ("layer", "Schicht"),
    "whatif.changed": ("changed", "geändert"),
    "whatif.new": ("new", "neu"),
    "whatif.per_layer": ("per layer (* changed; A -> B):", "je Schicht (* geändert; A -> B):"),
    "whatif.fusions_changed": ("fusions that changed (matched by the layers they compute):",
                               "geänderte Fusionen (zugeordnet über die Schichten, die sie berechnen):"),
    "whatif.peak_check": ("peak memory, checked against XLA's memory_analysis:",
                          "Spitzenbedarf an Speicher, geprüft an XLAs memory_analysis:"),
    "whatif.peak_line": ("{variant}: peak {peak} ({source}); memory_analysis arguments + outputs + temporaries "
                         "- aliased {xla}",
                         "{variant}: Spitze {peak} ({source}); memory_analysis Argumente + Ausgaben + "
                         "Temporäres - Aliase {xla}"),
    "whatif.row.fusions": ("fusions", "Fusionen"),
    "whatif.row.kernels": ("kernels", "Kernel"),
    "whatif.kernels_are_steps": (
        "TPU: each working instruction counts as a kernel (no inspectable machine code), so kernels = "
        "instructions; shown once",
        "TPU: Jede arbeitende Instruktion zählt als Kernel (kein einsehbarer Maschinencode), also Kernel = "
        "Instruktionen; einmal gezeigt"),
    "whatif.row.instructions": ("instructions", "Instruktionen"),
    "whatif.row.flops": ("FLOPs", "FLOPs"),
    "whatif.row.bytes_moved": ("bytes moved", "bewegte Bytes"),
    "whatif.row.estimated_time": ("estimated time", "geschätzte Zeit"),
    "whatif.row.bound": ("bound (compute/memory)", "gebunden (Rechnen/Speicher)"),
    "whatif.row.peak_memory": ("peak memory", "Spitzenbedarf an Speicher"),
    "whatif.row.xla_peak": ("XLA memory_analysis", "XLA memory_analysis"),
    "whatif.row.registers": ("registers (max)", "Register (max.)"),
    "whatif.col.instructions": ("instr", "Instr."),
    "whatif.col.bytes": ("bytes", "Bytes"),
    "whatif.col.estimate": ("estimate", "Schätzung"),
    "whatif.col.bound": ("bound", "gebunden"),
    "whatif.col.registers": ("regs", "Reg."),
    "whatif.col.occupancy": ("occupancy", "Auslastung"),
    "whatif.col.tiles": ("tiles", "Kacheln"),
    # `--vary quantize=none,int8` (explorer.views.whatif.quantized).
    "whatif.quantized": ("quantized ({mode}) by Keras: {layers}; weights {before} -> {after}",
                         "von Keras quantisiert ({mode}): {layers}; Gewichte {before} -> {after}"),
    "whatif.quantized_layer": ("{layer} ({class_name}, {policy}, {before} -> {after})",
                               "{layer} ({class_name}, {policy}, {before} -> {after})"),
    "whatif.stayed_float": ("stayed as trained: {layers}", "blieben wie trainiert: {layers}"),
    "whatif.integer_dots": ("the integer dot on {target} and what XLA made of it:",
                            "das Integer-Produkt auf {target} und was XLA daraus machte:"),
    "whatif.dot_traced": ("traced:    {dot}", "verfolgt:  {dot}"),
    "whatif.dot_optimized": ("optimized: {dot}", "optimiert: {dot}"),
    "whatif.dot_in_fusion": ("in fusion {fusion}", "in der Fusion {fusion}"),
    "whatif.dot_widened": ("XLA widened the s8 operands to s32 before the dot",
                           "XLA verbreiterte die s8-Operanden vor dem Produkt auf s32"),
    "whatif.dot_kept": ("the dot still reads s8 operands", "das Produkt liest weiter s8-Operanden"),
    "whatif.dot_constant": ("the weights are a constant of the program: {shape} ({bytes})",
                            "die Gewichte sind eine Konstante des Programms: {shape} ({bytes})"),
    "whatif.dot_gone": ("no integer dot of this layer is left in the optimized module",
                        "im optimierten Modul ist kein Integer-Produkt dieser Schicht übrig"),
    "whatif.dot_kernel": ("kernel {kernel}: {instructions}", "Kernel {kernel}: {instructions}"),
    "whatif.dot_no_multiplies": ("no integer multiply instruction in its listing",
                                 "kein Integer-Multiplikationsbefehl in seinem Listing"),
    "whatif.dot_found": ("{instructions} in the listing: the int8 dot-product instruction",
                         "{instructions} im Listing: der int8-Skalarproduktbefehl"),
    "whatif.dot_absent": ("no {instructions} in the listing: plain widening code",
                          "kein {instructions} im Listing: einfacher verbreiternder Code"),
    "whatif.bound.compute": ("compute", "Rechnen"),
    "whatif.bound.memory": ("memory", "Speicher"),
}
