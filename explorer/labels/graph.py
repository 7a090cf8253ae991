"""The words of graph pictures: the legend's roles, the export key's status lines, the handouts' note."""

# key -> (English, German)
LABELS: dict[str, tuple[str, str]] = {
    "graph.role.selected": ("selected", "ausgewählt"),
    "graph.role.input": ("input, parameter", "Eingabe, Parameter"),
    "graph.role.constant": ("constant, variable", "Konstante, Variable"),
    "graph.role.fusion": ("fusion", "Fusion"),
    "graph.role.work": ("heavy work", "Hauptarbeit"),
    "graph.role.other": ("other", "sonstige"),
    "graph.exported": ("wrote {files}", "{files} geschrieben"),
    "graph.exported_dot_only": ("wrote {files} (SVG needs Graphviz: apt install graphviz)",
                                "{files} geschrieben (SVG braucht Graphviz: apt install graphviz)"),
    "graph.export_too_large": ("wrote {files}; {reason}", "{files} geschrieben; {reason}"),
    "graph.export_failed": ("graph not written: {reason}", "Graph nicht geschrieben: {reason}"),
    "graph.nothing_to_export": ("nothing selected to draw", "Nichts ausgewählt, das gezeichnet werden könnte"),
    "graph.export_in_browser": ("pictures are not written from a browser tab: run `tensorweg graph` in a terminal",
                                "Aus einem Browser-Tab werden keine Bilder geschrieben: "
                                "`tensorweg graph` im Terminal ausführen"),
    "handout.graph_alt": ("the neighbourhood of {name} as a graph", "die Umgebung von {name} als Graph"),
    "handout.no_graphviz": ("Graphviz is not installed, so the graph of the selection is left out "
                            "(apt install graphviz, then write the handout again).",
                            "Graphviz ist nicht installiert, daher fehlt der Graph der Auswahl "
                            "(apt install graphviz, dann das Handout erneut schreiben)."),
    "handout.graph_too_large": ("The graph of the selection is too large to render here: {reason}",
                                "Der Graph der Auswahl ist zu groß zum Zeichnen: {reason}"),
}
