"""Pull requests written as an attacker would write them, one per way of silencing a finding
that the "silence only on proof" work closed (constant folding, guards, sanitisers, security
regressions, introduced-only, line numbers, binary files, unread languages, test files), plus
variants. Each is a real git diff of a base and a head tree, reviewed through the command line
with ``--fail-on high``: the flaw must fail the gate (a high finding, or a review that is not
complete), never pass it or come back ``approve``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from code_guard.cli import EXIT_FINDINGS, EXIT_INCOMPLETE, main

CASES: dict[str, tuple[dict[str, str], dict[str, str]]] = {}


def case(name: str, files_head: dict[str, str], files_base: dict[str, str] | None = None) -> None:
    CASES[name] = (files_base or {}, files_head)


FLASK = "from flask import Flask, request\nimport requests\napp = Flask(__name__)\n"

# folding: walrus rebinding keeps the old literal
case(
    "fold-walrus",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    DEBUG = False

    @app.route("/fetch")
    def fetch():
        if (DEBUG := request.args.get("d")):
            pass
        if DEBUG:
            return requests.get(request.args["url"], timeout=5).text
        return "no"
    """)
    },
)
case(
    "fold-import-as",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    ENABLED = False
    from os import environ as ENABLED

    @app.route("/fetch")
    def fetch():
        if ENABLED:
            return requests.get(request.args["url"], timeout=5).text
        return "no"
    """)
    },
)
case(
    "fold-is",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    @app.route("/fetch")
    def fetch():
        if "ab" * 2 is "abab":
            return "x"
        return requests.get(request.args["url"], timeout=5).text
    """)
    },
)
case(
    "fold-dict-last",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    @app.route("/fetch")
    def fetch():
        cfg = {"on": False, "on": True}
        if cfg["on"]:
            return requests.get(request.args["url"], timeout=5).text
        return "no"
    """)
    },
)
case(
    "fold-suppress",
    {
        "app.py": FLASK
        + "from contextlib import suppress\n"
        + textwrap.dedent("""
    @app.route("/fetch")
    def fetch():
        with suppress(ValueError):
            raise ValueError("x")
        return requests.get(request.args["url"], timeout=5).text
    """)
    },
)
case(
    "fold-except-as",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    MODE = None

    @app.route("/fetch")
    def fetch():
        global MODE
        try:
            int("x")
        except ValueError as MODE:
            pass
        if MODE:
            return requests.get(request.args["url"], timeout=5).text
        return "no"
    """)
    },
)
# guards
case(
    "guard-ignored",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    def is_safe_url(u):
        return u.startswith("https://api.example.com/")

    @app.route("/fetch")
    def fetch():
        url = request.args["url"]
        is_safe_url(url)
        return requests.get(url, timeout=5).text
    """)
    },
)
case(
    "guard-invalidate",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    cache = {}

    @app.route("/fetch")
    def fetch():
        url = request.args["url"]
        if not cache.invalidate(url):
            return "bad"
        return requests.get(url, timeout=5).text
    """)
    },
)
case(
    "guard-or",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    ALLOWED = {"https://api.example.com/"}

    @app.route("/fetch")
    def fetch():
        url = request.args["url"]
        if url in ALLOWED or request.args.get("preview"):
            return requests.get(url, timeout=5).text
        return "no"
    """)
    },
)
case(
    "js-scheme-guard",
    {
        "server.js": textwrap.dedent("""
    const express = require("express");
    const axios = require("axios");
    const app = express();
    app.get("/fetch", async (req, res) => {
      const url = req.query.url;
      if (!/^https:\\/\\//.test(url)) {
        return res.status(400).send("bad");
      }
      const r = await axios.get(url);
      res.send(r.data);
    });
    """)
    },
)
# sanitisers
case(
    "san-fake",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    def sanitize_url(u):
        return u

    @app.route("/fetch")
    def fetch():
        url = sanitize_url(request.args["url"])
        return requests.get(url, timeout=5).text
    """)
    },
)
case(
    "san-quote-path",
    {
        "app.py": FLASK
        + "from urllib.parse import quote\n"
        + textwrap.dedent("""
    @app.route("/read")
    def read():
        name = quote(request.args["name"], safe="/.")
        with open("/srv/files/" + name) as f:
            return f.read()
    """)
    },
)
case(
    "san-escape-path",
    {
        "app.py": FLASK
        + "import html\n"
        + textwrap.dedent("""
    @app.route("/read")
    def read():
        name = html.escape(request.args["name"])
        with open("/srv/files/" + name) as f:
            return f.read()
    """)
    },
)
# regressions
BASE_R = (
    FLASK
    + "import os\n"
    + textwrap.dedent("""
    ROOT = "/srv/files"

    def other(p):
        return p.startswith("/tmp")

    @app.route("/read")
    def read():
        path = os.path.realpath(os.path.join(ROOT, request.args["name"]))
        if not path.startswith(ROOT + os.sep):
            return "denied", 403
        with open(path) as f:
            return f.read()
    """)
)
case(
    "reg-startswith-elsewhere",
    {
        "app.py": BASE_R.replace(
            """    if not path.startswith(ROOT + os.sep):
        return "denied", 403
""",
            "",
        )
    },
    {"app.py": BASE_R},
)
BASE_S = (
    FLASK
    + "from werkzeug.utils import secure_filename\n"
    + textwrap.dedent("""
    @app.route("/upload", methods=["POST"])
    def upload():
        f = request.files["file"]
        name = secure_filename(f.filename)
        f.save("/srv/uploads/" + name)
        return "ok"
    """)
)
case(
    "reg-fake-safe",
    {
        "app.py": BASE_S.replace(
            "from werkzeug.utils import secure_filename\n", "def safe_filename(n):\n    return n\n"
        ).replace("secure_filename(f.filename)", "safe_filename(f.filename)")
    },
    {"app.py": BASE_S},
)
BASE_D = (
    FLASK
    + "import os\n"
    + textwrap.dedent("""
    ROOT = "/srv/files"

    @app.route("/read")
    def read():
        name = request.args["name"]
        if ".." in name or name.startswith("/"):
            abort(400)
        log = "reading"
        print(log)
        size = 10
        print(size)
        more = 1
        print(more)
        with open(os.path.join(ROOT, name)) as f:
            return f.read()
    """)
)
case(
    "reg-pure-delete-far",
    {
        "app.py": BASE_D.replace(
            """    if ".." in name or name.startswith("/"):
        abort(400)
""",
            "",
        )
    },
    {"app.py": BASE_D},
)
# introduced-only
BASE_I = FLASK + textwrap.dedent("""
    @app.route("/a")
    def a():
        return requests.get(request.args["url"], timeout=5).text
    """)
case(
    "intro-second-copy",
    {
        "app.py": BASE_I
        + textwrap.dedent("""
    @app.route("/b")
    def b():
        return requests.get(request.args["url"], timeout=5).text
    """)
    },
    {"app.py": BASE_I},
)
# line numbers
case(
    "cr-lines",
    {
        "app.py": FLASK
        + "# note\r\r\rend\n"
        + textwrap.dedent("""
    @app.route("/fetch")
    def fetch():
        return requests.get(request.args["url"], timeout=5).text
    """)
    },
)
# unread languages
case(
    "java-only",
    {
        "src/Files.java": textwrap.dedent("""
    import javax.servlet.http.*;
    import java.io.*;
    public class Files extends HttpServlet {
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String name = req.getParameter("name");
        FileInputStream in = new FileInputStream("/srv/files/" + name);
        in.transferTo(resp.getOutputStream());
      }
    }
    """)
    },
)
# binary
case(
    "nul-js",
    {
        "server.js": "// build \x00 marker\n"
        + textwrap.dedent("""
    const express = require("express");
    const { exec } = require("child_process");
    const app = express();
    app.get("/run", (req, res) => {
      exec("ls " + req.query.dir, (e, out) => res.send(out));
    });
    """)
    },
)
case(
    "gitattr-diff",
    {
        ".gitattributes": "*.js -diff\n",
        "server.js": textwrap.dedent("""
    const express = require("express");
    const { exec } = require("child_process");
    const app = express();
    app.get("/run", (req, res) => {
      exec("ls " + req.query.dir, (e, out) => res.send(out));
    });
    """),
    },
)


def local(name: str, prelude: str, cond: str) -> None:
    case(
        name,
        {
            "app.py": FLASK
            + "import os\n"
            + textwrap.dedent("""
    @app.route("/fetch")
    def fetch():
        url = request.args["url"]
        flag = False
    %s
        if %s:
            return requests.get(url, timeout=5).text
        return "no"
    """)
            % (textwrap.indent(prelude, "    "), cond)
        },
    )


local("fold-l-walrus", "if (flag := request.args.get('d')):\n    pass", "flag")
local("fold-l-import", "import os.path as flag", "flag")
local("fold-l-def", "def flag():\n    return 1", "flag")
local("fold-l-except", "try:\n    int(url)\nexcept ValueError as flag:\n    print(flag)", "url")
local("fold-l-for", "for flag in request.args:\n    pass", "flag")
local("fold-l-with", "with open('/dev/null') as flag:\n    pass", "flag")
local("fold-l-is", "ok = 'ab' * 2", "not (ok is 'abab')")
local("fold-l-dict", "d = {'on': False, 'on': True}", "d['on']")

# A "test" module the application imports is production code: its path proves nothing.
case(
    "testpath-prod",
    {
        "svc/testing/proxy.py": textwrap.dedent("""\
            from flask import Blueprint, request
            import requests
            bp = Blueprint('proxy', __name__)

            @bp.route('/proxy')
            def proxy():
                return requests.get(request.args['url'], timeout=5).text
            """),
        "svc/app.py": textwrap.dedent("""\
            from flask import Flask
            from svc.testing.proxy import bp
            app = Flask(__name__)
            app.register_blueprint(bp)
            """),
    },
)
case(
    "testpath-go-fixtures",
    {
        "internal/fixtures/h.go": textwrap.dedent("""\
            package fixtures

            import (
            \t"net/http"
            \t"os/exec"
            )

            func Run(w http.ResponseWriter, r *http.Request) {
            \tout, _ := exec.Command("sh", "-c", r.URL.Query().Get("cmd")).Output()
            \tw.Write(out)
            }
            """)
    },
)

# A sink the Python taint check once missed: in a lambda bound to a name, or in a method whose
# name another class's method shares.
case(
    "lambda-sink",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    fetch = lambda u: requests.get(u, timeout=5)

    @app.route("/fetch")
    def proxy():
        return fetch(request.args["url"]).text
    """)
    },
)
case(
    "method-twin",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    class One:
        def go(self, u):
            return requests.get(u, timeout=5).text

    class Two:
        def go(self, u):
            return u.upper()

    @app.route("/fetch")
    def proxy():
        return One().go(request.args["url"])
    """)
    },
)
# A sink the Python taint check once missed: at a keyword passed in an unpacked mapping.
case(
    "spread-keywords",
    {
        "app.py": FLASK
        + textwrap.dedent("""
    @app.route("/fetch")
    def proxy():
        options = {"timeout": 5}
        target = {**options, "url": request.args["url"]}
        return requests.get(**target).text
    """)
    },
)


def pull_request(root: Path, base: dict[str, str], head: dict[str, str]) -> tuple[Path, Path]:
    """A repository at ``root`` whose last commit turns ``base`` into ``head``, and git's diff
    of it (bytes as git writes them: a lone carriage return stays one)."""
    repo = root / "repo"
    repo.mkdir()

    def git(*args: str) -> bytes:
        return subprocess.run(
            ["git", "-c", "user.email=a@example.com", "-c", "user.name=a", *args],
            cwd=repo, check=True, capture_output=True,
        ).stdout  # fmt: skip

    git("init", "-q")
    for tree, message in ((base, "base"), (head, "head")):
        for path, text in tree.items():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_bytes(text.encode())
        git("add", "-A")
        git("commit", "-q", "--allow-empty", "-m", message)
    diff = root / "pr.diff"
    diff.write_bytes(git("diff", "HEAD~1", "HEAD"))
    return diff, repo


@pytest.mark.skipif(shutil.which("git") is None, reason="the attacks are git's own diffs")
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_attack_fails_the_gate(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = CASES[name]
    diff, repo = pull_request(tmp_path, base, head)
    code = main(["review", str(diff), "--root", str(repo), "--format", "json", "-q",
                 "--fail-on", "high"])  # fmt: skip
    review = json.loads(capsys.readouterr().out)
    assert review["verdict"] != "approve"
    assert code in (EXIT_FINDINGS, EXIT_INCOMPLETE)
    if code == EXIT_FINDINGS:
        assert any(f["severity"] in ("high", "critical") for f in review["findings"])
    else:  # code no analyser reads: the review says so instead of passing
        assert review["outcome"] == "partial"
