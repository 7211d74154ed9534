"""Tests of the scope of each line (``scopes``): the function or class a kept result must
still be in, read with Python's parser or, for other languages, from the layout."""

from __future__ import annotations

from code_guard.change.scopes import scope_at

PYTHON = """\
import os


class Store:
    limit = 3

    @staticmethod
    def load(path):
        def inner():
            return open(path)
        return inner()


def run():
    return os.getcwd()
"""


def _all(path: str, text: str) -> list[str]:
    lines = text.split("\n")
    return [scope_at(path, lines, n) for n in range(1, len(lines) + 1)]


def test_python_lines_belong_to_their_innermost_function_or_class() -> None:
    scopes = _all("store.py", PYTHON)
    assert scopes[0] == ""  # module level is a scope of its own
    assert scopes[4] == "Store"
    assert scopes[6] == scopes[7] == "Store.load"  # the decorator and the signature too
    assert scopes[8] == scopes[9] == "Store.load.inner"
    assert scopes[10] == "Store.load"
    assert scopes[14] == "run"


def test_python_scopes_are_on_gits_lines_past_a_lone_carriage_return() -> None:
    text = PYTHON.replace("import os", "# a\r# b\r# c\rimport os")
    assert _all("store.py", text) == _all("store.py", PYTHON)


def test_python_the_parser_rejects_is_read_from_its_layout() -> None:
    broken = PYTHON.replace("return os.getcwd()", "return os.getcwd(")
    scopes = _all("store.py", broken)
    assert scopes[14] == "run"
    assert scopes[9] == "Store.load.inner"


JS = """\
const app = express();

app.get("/a", (req, res) => {
  res.send(eval(req.query.a));
});

class Api {
  async fetch(url) {
    return get(url);
  }
}

export function handler(event) {
  if (event) {
    return run(event);
  }
}
"""


def test_javascript_functions_methods_and_callbacks_are_scopes() -> None:
    scopes = _all("app.js", JS)
    assert scopes[0] == ""
    assert scopes[3] == 'app.get("/a", (req, res) => {'  # a callback, named by its line
    assert scopes[8] == "Api.fetch"
    assert scopes[14] == "handler"  # ``if (...) {`` opens a block, not a function


GO = """\
package main

func (s *Server) Handle(w http.ResponseWriter, r *http.Request) {
	run(r)
}

func main() {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		run(r)
	})
}
"""


def test_go_methods_are_named_with_their_receiver() -> None:
    scopes = _all("main.go", GO)
    assert scopes[3] == "Server.Handle"
    assert scopes[8].startswith("main.http.HandleFunc(")
    assert scopes[5] == ""


def test_two_callbacks_of_the_same_call_are_two_scopes() -> None:
    route = 'get("/{}", function (req, res) {{\n  run(req);\n}});\n'
    js = route.format("a") + route.format("b")
    scopes = _all("routes.js", js)
    assert scopes[1] != scopes[4]
    assert scopes[1].startswith('get("/a"') and scopes[4].startswith('get("/b"')


def test_a_deep_layout_names_a_scope_by_its_innermost_openers() -> None:
    lines = [" " * depth + f"function f{depth}() {{" for depth in range(50)]
    assert scope_at("deep.js", lines, 50) == "f46.f47.f48.f49"
