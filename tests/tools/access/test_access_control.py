"""Access control: an authorization, authentication or CSRF check the change takes away is
reported; one kept on the same handler (or moved to the router in front of it) is not, and a
look-alike (a renamed decorator, a check that can no longer fail) is not taken as proof.

Every snippet is written for these tests, from the frameworks' documented idioms.
"""

from __future__ import annotations

import difflib

import pytest

from code_guard.change.diff import parse_diff
from code_guard.change.request import ReviewRequest
from code_guard.findings import AgentName, Category, Severity, Silencing
from code_guard.knowledge.catalogue import table
from code_guard.knowledge.mapping import lookup
from code_guard.options import AnalysisOptions, ReviewOptions
from code_guard.report.sarif import to_sarif
from code_guard.review.engine import review_sync
from code_guard.tools.access.detector import RULES, find_access_issues
from code_guard.tools.access.model import ModelError, access_model, parse_model
from code_guard.tools.access.sides import Found
from code_guard.tools.access.tool import TOOL, AccessControlTool, language_of


def _diff(path: str, base: str, head: str) -> str:
    body = "".join(
        difflib.unified_diff(
            base.splitlines(keepends=True),
            head.splitlines(keepends=True),
            f"a/{path}",
            f"b/{path}",
            n=3,
        )
    )
    return f"diff --git a/{path} b/{path}\n{body}"


def _all(path: str, base: str, head: str) -> list[Found]:
    file = parse_diff(_diff(path, base, head)).files[0]
    language = language_of(path)
    assert language is not None
    return find_access_issues(file, head, language, access_model())


def _found(path: str, base: str, head: str) -> list[tuple[str, int, bool]]:
    """(rule, head line, on an unchanged line) of each live finding."""
    return [(f.rule, f.line, f.unchanged) for f in _all(path, base, head) if not f.silenced]


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if needle in line)


# --- deny branches: Go ---------------------------------------------------------------------

GO_BASE = """package api

import "net/http"

func (s *Server) EditRepo(w http.ResponseWriter, r *http.Request) {
	user := s.currentUser(r)
	repo := s.repo(r)
	if !user.CanEdit(repo) {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	s.save(repo, r)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) ViewRepo(w http.ResponseWriter, r *http.Request) {
	s.render(w, s.repo(r))
}
"""
GO_CHECK = """	if !user.CanEdit(repo) {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
"""


def test_a_deleted_go_deny_branch_is_reported_where_it_was() -> None:
    head = GO_BASE.replace(GO_CHECK, "")
    assert _found("api/repo.go", GO_BASE, head) == [
        ("deny-branch-removed", _line(head, "s.save(repo, r)"), True)
    ]


def test_a_go_deny_branch_moved_within_its_handler_or_strengthened_is_kept() -> None:
    moved = GO_BASE.replace(GO_CHECK, "").replace(
        "	user := s.currentUser(r)\n	repo := s.repo(r)\n",
        "	user := s.currentUser(r)\n	repo := s.repo(r)\n	s.audit(r)\n" + GO_CHECK,
    )
    stronger = GO_BASE.replace(
        "if !user.CanEdit(repo) {", "if !user.CanEdit(repo) || repo.Locked {"
    )
    for head in (moved, stronger):
        assert _found("api/repo.go", GO_BASE, head) == []
    kept = _all("api/repo.go", GO_BASE, stronger)
    assert [f.silenced for f in kept] == [Silencing.KEPT_PROTECTION.value]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # The condition can no longer hold.
        ("if !user.CanEdit(repo) {", "if false && !user.CanEdit(repo) {"),
        # A conjunct that the caller controls makes the deny rarer.
        ("if !user.CanEdit(repo) {", 'if !user.CanEdit(repo) && r.URL.Query().Get("x") == "" {'),
        # The deny is still written, but no longer ends the request.
        ("\t\treturn\n\t}\n\ts.save", "\t}\n\ts.save"),
    ],
)
def test_a_go_deny_branch_that_no_longer_denies_is_reported(old: str, new: str) -> None:
    head = GO_BASE.replace(old, new)
    assert head != GO_BASE
    rules = [rule for rule, _, _ in _found("api/repo.go", GO_BASE, head)]
    assert rules and set(rules) <= {"deny-branch-removed", "deny-branch-weakened"}


def test_a_go_deny_branch_moved_to_another_handler_is_reported() -> None:
    head = GO_BASE.replace(GO_CHECK, "").replace(
        "	s.render(w, s.repo(r))\n",
        "	user := s.currentUser(r)\n	repo := s.repo(r)\n"
        + GO_CHECK
        + "	s.render(w, repo)\n",
    )
    assert [r for r, _, _ in _found("api/repo.go", GO_BASE, head)] == ["deny-branch-removed"]


def test_a_go_check_whose_value_became_a_constant_is_reported() -> None:
    base = GO_BASE.replace(
        "	if !user.CanEdit(repo) {", "	allowed := user.CanEdit(repo)\n	if !allowed {"
    )
    head = base.replace("allowed := user.CanEdit(repo)", "allowed := true")
    assert [r for r, _, _ in _found("api/repo.go", base, head)] == ["deny-branch-weakened"]


GRPC_BASE = """package server

func (s *Server) GetTemplate(ctx context.Context, req *GetRequest) (*Template, error) {
	if err := s.checkPermission(ctx, "get", req.Name); err != nil {
		return nil, err
	}
	return s.load(ctx, req.Name)
}

func (s *Server) checkPermission(ctx context.Context, verb, name string) error {
	allowed, err := s.authz.Allowed(ctx, verb, name)
	if err != nil {
		return err
	}
	if !allowed {
		return status.Error(codes.PermissionDenied, "permission denied")
	}
	return nil
}
"""


def test_a_removed_call_to_a_helper_that_denies_is_reported() -> None:
    head = GRPC_BASE.replace(
        '	if err := s.checkPermission(ctx, "get", req.Name); err != nil {\n'
        "		return nil, err\n	}\n",
        "",
    )
    assert _found("server/templates.go", GRPC_BASE, head) == [
        ("deny-branch-removed", _line(head, "return s.load"), True)
    ]


def test_a_helper_deleted_with_every_call_is_reported_at_the_calls_only() -> None:
    head = GRPC_BASE.replace(
        '	if err := s.checkPermission(ctx, "get", req.Name); err != nil {\n'
        "		return nil, err\n	}\n",
        "",
    )
    head = head[: head.index("func (s *Server) checkPermission")].rstrip() + "\n"
    assert [line for _, line, _ in _found("server/templates.go", GRPC_BASE, head)] == [
        _line(head, "return s.load")
    ]


def test_a_name_only_check_counts_when_deleted_and_a_predicate_answer_does_not() -> None:
    base = """package acl

func (s *Server) Purge(ctx context.Context, req *PurgeRequest) error {
	if err := s.ensureAdmin(ctx); err != nil {
		return err
	}
	return s.store.Purge(ctx, req.ID)
}

func canSearch(a *ACL, ns string) bool {
	if !a.AllowNamespace(ns) {
		return false
	}
	return a.AllowRead(ns)
}
"""
    head = base.replace("\tif err := s.ensureAdmin(ctx); err != nil {\n\t\treturn err\n\t}\n", "")
    assert _found("acl/server.go", base, head) == [
        ("auth-check-removed", _line(head, "return s.store.Purge"), True)
    ]
    # An allow-list of values is input validation, not a decision about the caller.
    values = base.replace(
        "\tif err := s.ensureAdmin(ctx); err != nil {\n\t\treturn err\n\t}\n",
        '\tallowed := map[string]bool{"hard": true, "soft": true}\n'
        "\tif !allowed[req.Mode] {\n\t\treturn ErrBadMode\n\t}\n",
    )
    gone = values.replace("\tif !allowed[req.Mode] {\n\t\treturn ErrBadMode\n\t}\n", "")
    assert _found("acl/server.go", values, gone) == []
    # A 403 after a path containment check defends against traversal: the
    # security-regression tool reports it, in its category.
    contained = PY_VIEW.replace(
        'if not request.user.has_perm("billing.delete_invoice"):',
        "if os.path.commonpath([root, path]) != root:",
    )
    gone = contained.replace(
        "    if os.path.commonpath([root, path]) != root:\n        raise PermissionDenied\n", ""
    )
    assert _found("billing/views.py", contained, gone) == []
    # A predicate's `return false` answers a question; it refuses nothing by itself.
    predicate = base.replace("\tif !a.AllowNamespace(ns) {\n\t\treturn false\n\t}\n", "")
    assert _found("acl/server.go", base, predicate) == []


# --- deny branches: Python and JavaScript ---------------------------------------------------

PY_VIEW = """from django.core.exceptions import PermissionDenied


def delete_invoice(request, pk):
    invoice = Invoice.objects.get(pk=pk)
    if not request.user.has_perm("billing.delete_invoice"):
        raise PermissionDenied
    invoice.delete()
    return redirect("invoices")
"""


def test_a_deleted_django_permission_check_is_reported() -> None:
    head = PY_VIEW.replace(
        '    if not request.user.has_perm("billing.delete_invoice"):\n'
        "        raise PermissionDenied\n",
        "",
    )
    assert _found("billing/views.py", PY_VIEW, head) == [
        ("deny-branch-removed", _line(head, "invoice.delete()"), True)
    ]


def test_a_python_deny_whose_or_became_and_is_reported() -> None:
    base = PY_VIEW.replace(
        'if not request.user.has_perm("billing.delete_invoice"):',
        "if not request.user.is_staff or invoice.owner != request.user:",
    )
    head = base.replace(" or invoice.owner", " and invoice.owner")
    assert _found("billing/views.py", base, head) == [
        ("deny-branch-weakened", _line(head, "if not request.user.is_staff"), False)
    ]


JS_ROUTES = """const express = require("express");
const router = express.Router();

router.delete("/posts/:id", async (req, res) => {
  const post = await Post.findById(req.params.id);
  if (post.authorId !== req.user.id) {
    return res.status(403).json({ error: "not yours" });
  }
  await post.remove();
  res.sendStatus(204);
});

module.exports = router;
"""


def test_a_deleted_express_ownership_check_is_reported() -> None:
    head = JS_ROUTES.replace(
        "  if (post.authorId !== req.user.id) {\n"
        '    return res.status(403).json({ error: "not yours" });\n'
        "  }\n",
        "",
    )
    assert _found("routes/posts.js", JS_ROUTES, head) == [
        ("deny-branch-removed", _line(head, "await post.remove()"), True)
    ]


# --- decorators and dependencies ------------------------------------------------------------

DJANGO = """from django.contrib.auth.decorators import login_required, permission_required
from django.views.decorators.http import require_POST


@login_required
def dashboard(request):
    return render(request, "dashboard.html")


@login_required
@permission_required("shop.change_order")
@require_POST
def refund(request, order_id):
    Order.objects.get(pk=order_id).refund()
    return redirect("orders")
"""


def test_a_removed_login_required_is_reported_on_the_handler() -> None:
    head = DJANGO.replace("@login_required\n@permission_required", "@permission_required")
    assert _found("shop/views.py", DJANGO, head) == [
        ("decorator-removed", _line(head, '@permission_required("shop.change_order")'), True)
    ]


def test_reordered_decorators_are_kept() -> None:
    head = DJANGO.replace(
        '@login_required\n@permission_required("shop.change_order")\n@require_POST\n',
        '@require_POST\n@permission_required("shop.change_order")\n@login_required\n',
    )
    assert _found("shop/views.py", DJANGO, head) == []


@pytest.mark.parametrize(
    "head",
    [
        # A look-alike name the model does not know.
        DJANGO.replace(
            "@login_required\n@permission_required", "@login_required_lite\n@permission_required"
        ),
        # Commented out.
        DJANGO.replace(
            "@login_required\n@permission_required", "# @login_required\n@permission_required"
        ),
        # A weaker permission.
        DJANGO.replace('"shop.change_order"', '"shop.view_order"'),
        # Moved onto another handler: the refund view lost it.
        DJANGO.replace("@login_required\n@permission_required", "@permission_required").replace(
            "@login_required\ndef dashboard", "@login_required\n@login_required\ndef dashboard"
        ),
    ],
)
def test_a_look_alike_decorator_is_reported(head: str) -> None:
    assert [r for r, _, _ in _found("shop/views.py", DJANGO, head)] == ["decorator-removed"]


DRF = """from rest_framework import permissions, viewsets


class InvoiceViewSet(viewsets.ModelViewSet):
    queryset = Invoice.objects.all()
    serializer_class = InvoiceSerializer
    permission_classes = [permissions.IsAuthenticated, IsAccountOwner]
"""


@pytest.mark.parametrize(
    "new",
    [
        "    permission_classes = [permissions.IsAuthenticated]\n",
        "    permission_classes = [permissions.AllowAny]\n",
        "    permission_classes = []\n",
    ],
)
def test_a_permission_class_dropped_is_reported(new: str) -> None:
    head = DRF.replace(
        "    permission_classes = [permissions.IsAuthenticated, IsAccountOwner]\n", new
    )
    assert [r for r, _, _ in _found("billing/api.py", DRF, head)] == ["permission-dropped"]


def test_permission_classes_rewritten_across_lines_are_kept() -> None:
    head = DRF.replace(
        "    permission_classes = [permissions.IsAuthenticated, IsAccountOwner]\n",
        "    permission_classes = [\n        IsAccountOwner,\n"
        "        permissions.IsAuthenticated,\n    ]\n",
    )
    assert _found("billing/api.py", DRF, head) == []


FASTAPI = """from fastapi import APIRouter, Depends

router = APIRouter()


@router.delete("/items/{item_id}")
async def delete_item(item_id: int, user: User = Depends(get_current_user)):
    await items.delete(item_id, owner=user.id)
"""


def test_an_auth_dependency_dropped_is_reported() -> None:
    head = FASTAPI.replace(", user: User = Depends(get_current_user)", "")
    assert [r for r, _, _ in _found("app/items.py", FASTAPI, head)] == ["permission-dropped"]
    swapped = FASTAPI.replace("Depends(get_current_user)", "Depends(get_db)")
    assert [r for r, _, _ in _found("app/items.py", FASTAPI, swapped)] == ["permission-dropped"]


def test_an_auth_dependency_moved_into_the_decorator_is_kept() -> None:
    head = FASTAPI.replace(
        '@router.delete("/items/{item_id}")',
        '@router.delete("/items/{item_id}", dependencies=[Depends(get_current_user)])',
    ).replace(", user: User = Depends(get_current_user)", "")
    assert _found("app/items.py", FASTAPI, head) == []


# --- middleware and handler wrappers --------------------------------------------------------

CHI = """package web

func routes(s *Server) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.Logger)
	r.Use(s.requireLogin)
	r.Get("/projects", s.listProjects)
	r.Post("/projects", s.createProject)
	mux := http.NewServeMux()
	mux.Handle("/admin/", requireAdmin(s.adminPanel))
	return r
}
"""


def test_a_removed_auth_middleware_is_reported() -> None:
    head = CHI.replace("	r.Use(s.requireLogin)\n", "")
    assert _found("web/routes.go", CHI, head) == [
        ("middleware-removed", _line(head, 'r.Get("/projects"'), True)
    ]


def test_an_auth_middleware_moved_to_a_router_group_is_kept() -> None:
    head = CHI.replace(
        '\tr.Use(s.requireLogin)\n\tr.Get("/projects", s.listProjects)\n'
        '\tr.Post("/projects", s.createProject)\n',
        "	r.Group(func(r chi.Router) {\n		r.Use(s.requireLogin)\n"
        '\t\tr.Get("/projects", s.listProjects)\n'
        '\t\tr.Post("/projects", s.createProject)\n\t})\n',
    )
    assert _found("web/routes.go", CHI, head) == []


@pytest.mark.parametrize(
    "head",
    [
        CHI.replace("r.Use(s.requireLogin)", "r.Use(s.requireLoginLite)"),
        CHI.replace("r.Use(s.requireLogin)", "// r.Use(s.requireLogin)"),
        CHI.replace("requireAdmin(s.adminPanel)", "s.adminPanel"),
    ],
)
def test_a_look_alike_middleware_or_an_unwrapped_handler_is_reported(head: str) -> None:
    assert [r for r, _, _ in _found("web/routes.go", CHI, head)] == ["middleware-removed"]


EXPRESS = """const app = express();
app.use(express.json());
app.use(ensureLoggedIn);
app.use("/api", apiRouter);
"""


def test_a_removed_express_auth_middleware_is_reported() -> None:
    head = EXPRESS.replace("app.use(ensureLoggedIn);\n", "")
    assert [r for r, _, _ in _found("server/app.js", EXPRESS, head)] == ["middleware-removed"]


# --- CSRF -----------------------------------------------------------------------------------

SETTINGS = """MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
"""


def test_a_removed_csrf_middleware_is_reported_and_a_reordered_one_kept() -> None:
    head = SETTINGS.replace('    "django.middleware.csrf.CsrfViewMiddleware",\n', "")
    assert [r for r, _, _ in _found("site/settings.py", SETTINGS, head)] == [
        "csrf-protection-removed"
    ]
    moved = head.replace(
        '    "django.contrib.auth',
        '    "django.middleware.csrf.CsrfViewMiddleware",\n    "django.contrib.auth',
    )
    assert _found("site/settings.py", SETTINGS, moved) == []


VIEWS = """from django.views.decorators.csrf import csrf_protect


def transfer(request):
    return do_transfer(request)
"""


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("def transfer", "@csrf_exempt\ndef transfer"),
        ("def transfer", "@decorators.csrf.csrf_exempt\ndef transfer"),
        (
            "from django.views.decorators.csrf import csrf_protect\n",
            "from django.views.decorators.csrf import csrf_exempt as public\n",
        ),
    ],
)
def test_a_csrf_exemption_added_is_reported(old: str, new: str) -> None:
    head = VIEWS.replace(old, new)
    assert [r for r, _, _ in _found("bank/views.py", VIEWS, head)] == ["csrf-exempted"]


def test_an_exemption_already_there_is_not_reported_again() -> None:
    base = VIEWS.replace("def transfer", "@csrf_exempt\ndef transfer")
    head = base.replace("return do_transfer(request)", "return do_transfer(request, audit=True)")
    assert _found("bank/views.py", base, head) == []


@pytest.mark.parametrize(
    ("path", "base", "head"),
    [
        ("app/config.py", "WTF_CSRF_ENABLED = True\n", "WTF_CSRF_ENABLED = False\n"),
        (
            "app/__init__.py",
            "app = Flask(__name__)\ncsrf = CSRFProtect(app)\n",
            "app = Flask(__name__)\n",
        ),
        (
            "main.go",
            "func main() {\n\tCSRF := csrf.Protect(key)\n"
            '\thttp.ListenAndServe(":8000", CSRF(r))\n}\n',
            'func main() {\n\thttp.ListenAndServe(":8000", r)\n}\n',
        ),
        (
            "main.go",
            'func main() {\n\th := nosurf.New(mux)\n\thttp.ListenAndServe(":8000", h)\n}\n',
            'func main() {\n\thttp.ListenAndServe(":8000", mux)\n}\n',
        ),
        (
            "server.js",
            "app.use(csrf({ cookie: true }));\napp.post('/pay', pay);\n",
            "app.post('/pay', pay);\n",
        ),
    ],
)
def test_csrf_protection_turned_off_is_reported(path: str, base: str, head: str) -> None:
    rules = [r for r, _, _ in _found(path, base, head)]
    assert rules and set(rules) == {
        "csrf-exempted" if "False" in head else "csrf-protection-removed"
    }


ORIGIN = """package hub

func (h *Hub) export(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" && origin != h.selfOrigin {
		http.Error(w, "cross-site request", http.StatusForbidden)
		return
	}
	h.exportTo(r.FormValue("path"))
}
"""


def test_a_removed_origin_check_is_a_csrf_finding() -> None:
    head = ORIGIN.replace(
        '\tif origin := r.Header.Get("Origin"); origin != "" && origin != h.selfOrigin {\n'
        '\t\thttp.Error(w, "cross-site request", http.StatusForbidden)\n\t\treturn\n\t}\n',
        "",
    )
    assert _found("hub/export.go", ORIGIN, head) == [
        ("csrf-check-removed", _line(head, "h.exportTo"), True)
    ]
    info = lookup(TOOL, "csrf-check-removed")
    assert info is not None and info.category is Category.CSRF


@pytest.mark.parametrize(
    ("old", "new", "rules"),
    [
        # Stronger: any cross-site request is refused, empty Origin or not.
        ('origin != "" && origin != h.selfOrigin', "origin != h.selfOrigin", []),
        # Weaker: a request that sends any Origin at all passes.
        ('origin != "" && origin != h.selfOrigin', 'origin == ""', ["csrf-check-removed"]),
        # A look-alike that never refuses.
        ('origin != "" && origin != h.selfOrigin', 'false && origin != ""', ["csrf-check-removed"]),
    ],
)
def test_an_origin_check_rewritten(old: str, new: str, rules: list[str]) -> None:
    head = ORIGIN.replace(old, new)
    assert [r for r, _, _ in _found("hub/export.go", ORIGIN, head)] == rules


# --- a new handler without its siblings' protection -----------------------------------------

FLASK = """from flask_login import login_required


@app.route("/notes")
@login_required
def notes():
    return render_template("notes.html")


@app.route("/notes/<int:pk>", methods=["POST"])
@login_required
def save_note(pk):
    return save(pk)


@app.route("/settings")
@login_required
def settings():
    return render_template("settings.html")
"""


def _with_route(decorators: str, name: str) -> str:
    return FLASK + f"\n\n{decorators}\ndef {name}():\n    return do_{name}()\n"


def test_a_new_route_without_its_siblings_login_is_reported_at_medium() -> None:
    head = _with_route('@app.route("/notes/export", methods=["POST"])', "export")
    found = [f for f in _all("notes/views.py", FLASK, head) if not f.silenced]
    assert [(f.rule, f.line) for f in found] == [("route-unprotected", _line(head, "def export"))]
    assert "`notes`" in found[0].detail and "`settings`" in found[0].detail
    info = lookup(TOOL, "route-unprotected")
    assert info is not None and info.severity is Severity.MEDIUM


def test_a_new_route_with_the_siblings_protection_or_a_public_probe_is_quiet() -> None:
    guarded = _with_route('@app.route("/notes/export")\n@login_required', "export")
    assert _found("notes/views.py", FLASK, guarded) == []
    probe = _with_route('@app.route("/healthz")', "healthz")
    assert _found("notes/views.py", FLASK, probe) == []
    held = [f.silenced for f in _all("notes/views.py", FLASK, probe)]
    assert held == [Silencing.RULE_DECLINED.value]


@pytest.mark.parametrize(
    "decorators",
    [
        '@app.route("/healthz", methods=["POST"])',  # a probe's name on a route that writes
        '@app.route("/notes/export")\n@login_required_lite',  # a look-alike decorator
        '@app.route("/notes/export")\n# @login_required',  # commented out
    ],
)
def test_a_new_route_with_a_look_alike_protection_is_reported(decorators: str) -> None:
    head = _with_route(decorators, "export")
    assert [r for r, _, _ in _found("notes/views.py", FLASK, head)] == ["route-unprotected"]


GIN = """package api

func Register(r *gin.Engine, h *Handlers) {
	r.GET("/orders", RequireAuth(), h.ListOrders)
	r.POST("/orders", RequireAuth(), h.CreateOrder)
	r.DELETE("/orders/:id", RequireAuth(), h.DeleteOrder)
}
"""


def test_a_new_gin_route_without_the_shared_middleware_is_reported() -> None:
    head = GIN.replace("}\n", '	r.PUT("/orders/:id", h.UpdateOrder)\n}\n')
    assert _found("api/routes.go", GIN, head) == [
        ("route-unprotected", _line(head, "r.PUT"), False)
    ]
    kept = GIN.replace("}\n", '	r.PUT("/orders/:id", RequireAuth(), h.UpdateOrder)\n}\n')
    assert _found("api/routes.go", GIN, kept) == []


EXPRESS_ROUTES = """const router = express.Router();

router.get("/account", requireLogin, showAccount);
router.post("/account", requireLogin, csrfProtection, saveAccount);
router.delete("/account", requireLogin, csrfProtection, deleteAccount);
router.get("/healthz", (req, res) => res.send("ok"));
"""


def test_a_new_express_route_without_the_shared_login_is_reported() -> None:
    head = EXPRESS_ROUTES.replace(
        'router.get("/healthz"',
        'router.post("/account/export", exportAccount);\nrouter.get("/healthz"',
    )
    assert _found("routes/account.js", EXPRESS_ROUTES, head) == [
        ("route-unprotected", _line(head, "/account/export"), False)
    ]
    probe = EXPRESS_ROUTES + 'router.get("/readyz", (req, res) => res.send("ok"));\n'
    assert _found("routes/account.js", EXPRESS_ROUTES, probe) == []


# --- ownership scopes of lookups -----------------------------------------------------------

ORM = """def invoice(request, pk):
    found = get_object_or_404(Invoice, pk=pk, owner=request.user)
    return render(request, "invoice.html", {"invoice": found})
"""
GO_QUERY = """package api

func (s *Server) GetRepo(ctx context.Context, name string) (*Repo, error) {
	projectID := auth.ProjectFrom(ctx)
	return s.store.GetRepository(ctx, db.GetRepositoryParams{
		Name:      name,
		ProjectID: projectID,
	})
}
"""


def test_an_ownership_constraint_dropped_from_a_lookup_is_reported() -> None:
    head = ORM.replace(", owner=request.user", "")
    assert _found("billing/views.py", ORM, head) == [
        ("scope-dropped", _line(head, "get_object_or_404"), False)
    ]
    go = GO_QUERY.replace("\tprojectID := auth.ProjectFrom(ctx)\n", "").replace(
        "\t\tProjectID: projectID,\n", ""
    )
    assert [r for r, _, _ in _found("api/repos.go", GO_QUERY, go)] == ["scope-dropped"]


def test_an_ownership_constraint_kept_or_handed_to_a_helper_is_not_reported() -> None:
    reordered = ORM.replace("pk=pk, owner=request.user", "owner=request.user, pk=pk")
    helper = ORM.replace(
        "get_object_or_404(Invoice, pk=pk, owner=request.user)",
        "owned_or_404(Invoice, request.user, pk=pk)",
    )
    for head in (reordered, helper):
        assert _found("billing/views.py", ORM, head) == []
    # The ORM filter rewritten as SQL on the same owner column (`team` is `team_id`).
    orm = "def search(team, term):\n    return Ticket.objects.filter(team=team, subject=term)\n"
    sql = (
        "def search(team, term):\n"
        '    where = ["t.team_id = %s", "t.subject = %s"]\n'
        "    return run(where, [team.pk, term])\n"
    )
    assert _found("tickets/search.py", orm, sql) == []


def test_a_deny_whose_response_changed_but_still_refuses_is_kept() -> None:
    base = PY_VIEW.replace("raise PermissionDenied", 'return render(request, "denied.html"), 403')
    head = base.replace('"denied.html"), 403', '"denied.html", {"why": "perm"}), 403')
    assert _found("billing/views.py", base, head) == []


@pytest.mark.parametrize(
    "head",
    [
        # A look-alike filter that no longer names the caller.
        ORM.replace("owner=request.user", "owner__isnull=False"),
        # Commented out of a call written across lines.
        ORM.replace(
            "get_object_or_404(Invoice, pk=pk, owner=request.user)",
            "get_object_or_404(\n        Invoice,\n        pk=pk,\n"
            "        # owner=request.user,\n    )",
        ),
        # Moved to another view: this one lost it.
        ORM.replace(", owner=request.user", "")
        + "\n\ndef mine(request):\n    return Invoice.objects.filter(owner=request.user)\n",
    ],
)
def test_an_ownership_constraint_look_alike_is_reported(head: str) -> None:
    assert [r for r, _, _ in _found("billing/views.py", ORM, head)] == ["scope-dropped"]


# --- the model, the catalogue and the pipeline ----------------------------------------------


def test_every_rule_the_detector_emits_has_a_record_of_its_category() -> None:
    records = table(TOOL)
    assert records is not None and set(records.rules) == set(RULES)
    for rule in RULES:
        info = lookup(TOOL, rule)
        assert info is not None and info.cwe and info.why and info.fix
        expected = Category.CSRF if rule.startswith("csrf") else Category.BROKEN_ACCESS_CONTROL
        assert info.category is expected


def test_a_bad_model_entry_fails_with_one_line_naming_it() -> None:
    text = "deny: {python: ['('], go: [], javascript: [], any: []}\n"
    with pytest.raises(ModelError, match=r"^access_control.yml: deny.python"):
        parse_model(text)


def test_the_tool_reads_test_looking_files_and_skips_other_languages() -> None:
    # A path that looks like a test proves nothing (production may import it): the tool
    # reads it, and the test-file filter decides on proof (testfiles.py).
    tool = AccessControlTool()
    assert tool.applies_to("app/views.py") and tool.applies_to("web/routes.go")
    assert tool.applies_to("tests/test_views.py") and not tool.applies_to("README.md")


def test_a_deleted_check_is_a_finding_on_the_unchanged_line_through_the_review() -> None:
    head = GO_BASE.replace(GO_CHECK, "")
    path = "api/repo.go"
    request = ReviewRequest(change=parse_diff(_diff(path, GO_BASE, head)), contents={path: head})
    options = ReviewOptions(analysis=AnalysisOptions(agents=(AgentName.SECURITY,)))
    review = review_sync(request, options)
    found = [f for f in review.findings if any(s.startswith(f"{TOOL}:") for s in f.sources)]
    assert [(f.line_start, f.category) for f in found] == [
        (_line(head, "s.save(repo, r)"), Category.BROKEN_ACCESS_CONTROL)
    ]
    assert found[0].removed_line == "if !user.CanEdit(repo) {"
    assert found[0].cwe_id == "CWE-862"
    # Code scanning files it as a security alert of its category, ranked high.
    rules = to_sarif(review)["runs"][0]["tool"]["driver"]["rules"]
    rule = next(r for r in rules if r["id"] == "code-guard/broken_access_control")
    assert rule["properties"]["security-severity"] == "8.0"
    assert {"security", "CWE-862", "external/cwe/cwe-862"} <= set(rule["properties"]["tags"])


@pytest.mark.parametrize(
    ("path", "base", "head", "removed_at"),
    [
        ("api/repo.go", GO_BASE, GO_BASE.replace(GO_CHECK, ""), _line(GO_BASE, "!user.CanEdit")),
        (
            "shop/views.py",
            DJANGO,
            DJANGO.replace("@login_required\n@permission_required", "@permission_required"),
            _line(DJANGO, "@permission_required(") - 1,
        ),
        (
            "web/routes.go",
            CHI,
            CHI.replace("\tr.Use(s.requireLogin)\n", ""),
            _line(CHI, "r.Use(s.requireLogin)"),
        ),
        (
            "site/settings.py",
            SETTINGS,
            SETTINGS.replace('    "django.middleware.csrf.CsrfViewMiddleware",\n', ""),
            _line(SETTINGS, "CsrfViewMiddleware"),
        ),
        ("billing/views.py", ORM, ORM.replace(", owner=request.user", ""), 2),
    ],
)
def test_each_removed_protection_names_its_base_line(
    path: str, base: str, head: str, removed_at: int
) -> None:
    # The base line of the removed protection: where its inline comment goes (side LEFT).
    (found,) = [f for f in _all(path, base, head) if not f.silenced]
    assert found.removed_at == removed_at
    assert found.removed in base.split("\n")[removed_at - 1]
    file = parse_diff(_diff(path, base, head)).files[0]
    assert removed_at in {
        ln.old_number for h in file.hunks for ln in h.lines if ln.new_number is None
    }


def test_a_finding_of_the_tool_carries_the_base_line_of_its_removed_check() -> None:
    head = GO_BASE.replace(GO_CHECK, "")
    path = "api/repo.go"
    request = ReviewRequest(change=parse_diff(_diff(path, GO_BASE, head)), contents={path: head})
    hits = AccessControlTool().run_change(request, request.change.files)
    live = [h for h in hits if not h.silenced]
    assert [(h.line, h.removed_at) for h in live] == [
        (_line(head, "s.save(repo, r)"), _line(GO_BASE, "if !user.CanEdit(repo) {"))
    ]
    options = ReviewOptions(analysis=AnalysisOptions(agents=(AgentName.SECURITY,)))
    review = review_sync(request, options)
    (finding,) = [f for f in review.findings if any(s.startswith(f"{TOOL}:") for s in f.sources)]
    assert finding.line_start == _line(head, "s.save(repo, r)")  # still the head line
    assert finding.removed_at == _line(GO_BASE, "if !user.CanEdit(repo) {")


def test_the_deny_patterns_are_built_once_per_model_and_language() -> None:
    """``guards_of`` runs for every function of both sides: it reuses one ``Denials`` per
    model and language, and a model built anew gets its own, from its own patterns."""
    from code_guard.tools.access.guards import Denials, denials_for

    model = access_model()
    first = denials_for(model, "python")
    assert denials_for(model, "python") is first
    assert denials_for(model, "go") is not first
    assert first.deny.pattern == Denials(model, "python").deny.pattern
    other = model.model_copy(deep=True)
    assert denials_for(other, "python") is not first
    assert denials_for(other, "python").deny.pattern == first.deny.pattern
