"""The inspector screen's collaborators stay collaborators: none imports the screen's module (not
even for its types: they are handed a Host, ui/screens/host.py), and no class under ui/screens
is a mixin (a class of ours, not a Textual one, that another class inherits to add methods)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import grimp

TUI = Path(__file__).resolve().parents[2] / "tui"
SCREENS = TUI / "mcptui" / "ui" / "screens"
INSPECTOR = "mcptui.ui.screens.inspector"
ALLOWED = {"mcptui.ui.app", "mcptui.ui.watch_app", "mcptui.ui.screenshot", "mcptui.ui.screens"}
"""Who may import the screen: the apps that show it (`watch` pushes it over its list), the
screenshot that draws it."""


def test_no_collaborator_imports_the_inspector_module_even_for_types():
    sys.path.insert(0, str(TUI))
    try:
        graph = grimp.build_graph("mcptui", exclude_type_checking_imports=False)
    finally:
        sys.path.remove(str(TUI))
    importers = graph.find_modules_that_directly_import(INSPECTOR)
    assert importers - ALLOWED == set()


def test_no_class_under_ui_screens_inherits_from_a_helper_class_of_ours():
    ours: dict[str, str] = {}
    bases: list[tuple[str, str]] = []
    for path in sorted(SCREENS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                ours[node.name] = path.name
                bases += [(f"{path.name}:{node.name}", ast.unparse(b)) for b in node.bases]
    # Protocols are what a collaborator is handed; the other classes of ours must not be bases.
    mixed_in = [
        (cls, base)
        for cls, base in bases
        if base in ours and base not in ("Host", "HostApp") and not base.endswith("Screen")
    ]
    assert mixed_in == []
    assert "Host" in ours  # the check above looks at the right files
