// A shell command run by child_process's exec under another spelling: the function taken into
// a variable (or a chain of them), destructured under another name, bound, or named by a
// string. Each is reported; a fixed command, execFile with an argument list and a regular
// expression's exec are not.
const express = require("express");
const cp = require("child_process");
const app = express();

// ---- the function in a variable
app.get("/alias", (req, res) => {
  const run = cp.exec;
  // ruleid: js-command-injection-exec
  run(req.query.cmd);
  res.send("ok");
});

app.get("/alias-chain", (req, res) => {
  const run = cp.exec;
  const again = run;
  // ruleid: js-command-injection-exec
  again(req.query.cmd);
  res.send("ok");
});

app.get("/alias-later", (req, res) => {
  let run;
  run = cp.execSync;
  // ruleid: js-command-injection-exec
  run(req.query.cmd);
  res.send("ok");
});

app.get("/alias-bound", (req, res) => {
  const run = cp.exec.bind(cp);
  // ruleid: js-command-injection-exec
  run(req.query.cmd);
  res.send("ok");
});

app.get("/alias-module", (req, res) => {
  const shellOut = require("child_process").execSync;
  // ruleid: js-command-injection-exec
  shellOut(`ls ${req.query.dir}`);
  res.send("ok");
});

app.get("/destructured", (req, res) => {
  const { exec: run } = cp;
  // ruleid: js-command-injection-exec
  run(req.query.cmd);
  res.send("ok");
});

app.get("/destructured-module", (req, res) => {
  const { execSync: run } = require("child_process");
  // ruleid: js-command-injection-exec
  run(req.query.cmd, { stdio: "inherit" });
  res.send("ok");
});

app.get("/module-in-variable", (req, res) => {
  const m = require("child_process");
  // ruleid: js-command-injection-exec
  m.exec(req.query.cmd);
  res.send("ok");
});

app.get("/alias-fixed", (req, res) => {
  const run = cp.exec;
  // ok: js-command-injection-exec
  run("git status");
  res.send("ok");
});

app.get("/destructured-fixed", (req, res) => {
  const { exec: run } = cp;
  // ok: js-command-injection-exec
  run("git status");
  res.send("ok");
});

app.get("/alias-exec-file", (req, res) => {
  const run = cp.execFile;
  // ok: js-command-injection-exec
  run("ls", [req.query.dir]);
  res.send("ok");
});

app.get("/regex-exec", (req, res) => {
  const pattern = /^[a-z]+$/;
  const { exec: match } = pattern;
  const test = pattern.exec;
  // ok: js-command-injection-exec
  match.call(pattern, req.query.name);
  // ok: js-command-injection-exec
  test(req.query.name);
  res.send("ok");
});

// ---- the method named by a string (semgrep-core folds a constant key to the literal)
app.get("/computed", (req, res) => {
  // ruleid: js-command-injection-exec
  require("child_process")["exec"](req.query.cmd);
  res.send("ok");
});

app.get("/computed-variable", (req, res) => {
  // ruleid: js-command-injection-exec
  cp["execSync"](req.query.cmd);
  res.send("ok");
});

app.get("/computed-joined", (req, res) => {
  // ruleid: js-command-injection-exec
  cp["ex" + "ec"](req.query.cmd);
  res.send("ok");
});

app.get("/computed-constant", (req, res) => {
  const method = "exec";
  // ruleid: js-command-injection-exec
  cp[method](req.query.cmd);
  res.send("ok");
});

app.get("/computed-template", (req, res) => {
  // ruleid: js-command-injection-exec
  require("node:child_process")[`exec`](req.query.cmd);
  res.send("ok");
});

app.get("/computed-fixed", (req, res) => {
  // ok: js-command-injection-exec
  cp["exec"]("git status");
  // ok: js-command-injection-exec
  require("child_process")["execSync"]("git status");
  res.send("ok");
});

app.get("/computed-exec-file", (req, res) => {
  // ok: js-command-injection-exec
  cp["execFile"]("ls", [req.query.dir]);
  res.send("ok");
});

app.get("/shell-spawn", (req, res) => {
  // a shell joins spawn's arguments into one command line, so a fixed program is no excuse
  // ruleid: js-command-injection-exec
  cp["spawn"]("ls", [req.query.dir], { shell: true });
  res.send("ok");
});
