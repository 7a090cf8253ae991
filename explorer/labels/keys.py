"""The keys: each binding's description and tooltip, and Textual's own keys in German."""

# key -> (English, German)
LABELS: dict[str, tuple[str, str]] = {
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
    "binding.app.interrupt": ("Copy/Quit", "Kopieren/Beenden"),
    "binding.app.maximize": ("Zoom", "Zoom"),
    "binding.level.filter": ("Filter", "Filtern"),
    "binding.level.down": ("Down", "Hinunter"),
    "binding.level.back": ("Back", "Zurück"),
    "binding.items.fold": ("Fold", "Falten"),
    "binding.graph.toggle": ("Graph", "Graph"),
    "binding.graph.wider": ("Radius+", "Radius+"),
    "binding.graph.narrower": ("Radius-", "Radius-"),
    "binding.graph.export": ("Export graph", "Graph exportieren"),
    "binding.compare.export": ("Export graph", "Graph exportieren"),
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
    "binding.devices.next": ("Next tab", "Nächster Reiter"),
    "binding.devices.previous": ("Previous tab", "Voriger Reiter"),
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
    "tooltip.app.interrupt": ("Copy the text selected with the mouse; with none selected, quit tensorweg "
                              "(cancels a capture in progress)",
                              "Den mit der Maus markierten Text kopieren; ist keiner markiert, tensorweg beenden "
                              "(bricht eine laufende Erfassung ab)"),
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
    "tooltip.graph.export": ("Write the selection's neighbourhood at this radius as .dot and .svg files "
                             "(a new name in the current directory; SVG needs Graphviz)",
                             "Die Umgebung der Auswahl in diesem Radius als .dot- und .svg-Datei schreiben "
                             "(ein neuer Name im aktuellen Verzeichnis; SVG braucht Graphviz)"),
    "tooltip.compare.export": ("Write the layer's optimized HLO on every target as .dot and .svg files "
                               "(a new name in the current directory; SVG needs Graphviz)",
                               "Das optimierte HLO der Schicht auf jedem Ziel als .dot- und .svg-Datei schreiben "
                               "(ein neuer Name im aktuellen Verzeichnis; SVG braucht Graphviz)"),
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
    "tooltip.devices.next": ("Open the next device's tab", "Den Reiter des nächsten Geräts öffnen"),
    "tooltip.devices.previous": ("Open the previous device's tab", "Den Reiter des vorigen Geräts öffnen"),
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
    "binding.app.cancel_capture": ("Cancel capture", "Erfassung abbrechen"),
    "tooltip.app.cancel_capture": ("Stop the capture, or give up its place in the server's queue",
                                   "Die Erfassung beenden oder ihren Platz in der Warteschlange des Servers aufgeben"),
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
    "binding.layers.open": ("Open", "Öffnen"),
    "tooltip.layers.open": ("Open or fold a container (a nested model or Sequential block) to its inner layers",
                            "Einen Container (ein verschachteltes Modell, einen Sequential-Block) auf seine "
                            "inneren Schichten öffnen oder zuklappen"),
    "binding.passes.close": ("Close", "Schließen"),
    "tooltip.passes.close": ("Close the filmstrip and return to the HLO level",
                             "Den Film schließen und zur HLO-Ebene zurückkehren"),
    "binding.passes.capture": ("Capture", "Erfassen"),
    "tooltip.passes.capture": ("Without frames: capture the model again with every compiler pass kept (--passes)",
                               "Ohne Bilder: das Modell erneut erfassen und jeden Compiler-Pass behalten (--passes)"),
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
