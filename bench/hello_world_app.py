"""The hello-world Textual app the terminal bench times beside tensorweg (`bench_terminal.py`):
the least a Textual app does for each thing measured, so a ratio against it shows what
tensorweg adds. It shows ten rows (`hello-row-N`), moves a `>` mark over them with Down,
shows a second screen of rows on `4` (a level's first visit) and quits on `q`.

    python bench/hello_world_app.py
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

ROWS = 10


def rows_text(prefix: str, cursor: int) -> str:
    return "\n".join(f"{'>' if row == cursor else ' '} {prefix}-row-{row}" for row in range(ROWS))


class SecondScreen(Screen):
    BINDINGS = [("1", "app.pop_screen", "back")]

    def compose(self) -> ComposeResult:
        yield Static(rows_text("second", 0))


class HelloWorld(App):
    BINDINGS = [("down", "move", "down"), ("4", "second", "second"), ("q", "quit", "quit")]

    def __init__(self) -> None:
        super().__init__()
        self.cursor = 0

    def compose(self) -> ComposeResult:
        yield Static(rows_text("hello", self.cursor), id="rows")

    def action_move(self) -> None:
        self.cursor = (self.cursor + 1) % ROWS
        self.query_one("#rows", Static).update(rows_text("hello", self.cursor))

    def action_second(self) -> None:
        self.push_screen(SecondScreen())


if __name__ == "__main__":
    HelloWorld().run()
