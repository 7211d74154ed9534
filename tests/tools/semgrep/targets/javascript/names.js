// A check named for what it would prove proves nothing (issue 27); a real check or escape
// stays quiet.
const express = require("express");
const fs = require("fs");
const path = require("path");
const axios = require("axios");
const _ = require("lodash");
const app = express();

function isSafePath(p) {
  return true;
}

function isAllowedUrl(u) {
  return u.length > 0;
}

const cache = { escape: (s) => s };

app.get("/named-path", (req, res) => {
  const name = req.query.name;
  if (!isSafePath(name)) {
    return res.status(400).end();
  }
  // ruleid: js-path-traversal-request-path
  res.sendFile(path.join("/srv/docs", name));
});

app.get("/imported-path", (req, res) => {
  const name = req.query.name;
  if (!utils.isInsideDir(name)) {
    throw new Error("bad path");
  }
  // ruleid: js-path-traversal-request-path
  fs.readFile(path.join("/srv/notes", name), () => {});
});

app.get("/named-host", async (req, res) => {
  const target = req.query.url;
  if (!isAllowedUrl(target)) {
    return res.status(400).end();
  }
  // ruleid: js-ssrf-request-url
  const reply = await axios.get(target);
  res.json(reply.data);
});

app.get("/checked-host", async (req, res) => {
  const target = req.query.url;
  if (!validateTarget(target)) {
    return res.status(400).end();
  }
  // ruleid: js-ssrf-request-url
  await fetch(target);
});

app.get("/own-escape", (req, res) => {
  // ruleid: js-xss-html-from-input
  res.send(`<p>${cache.escape(req.query.name)}</p>`);
});

app.get("/real-escape", (req, res) => {
  // ok: js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  res.send(`<p>${_.escape(req.query.name)}</p>`);
});

app.get("/real-path", (req, res) => {
  const name = req.query.name;
  if (name.includes("..")) {
    return res.status(400).end();
  }
  // ok: js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  res.sendFile(path.join("/srv/real", name));
});

const ALLOWED = new Set(["https://api.example.com/v1"]);

app.get("/real-host", async (req, res) => {
  const target = req.query.url;
  if (!ALLOWED.has(target)) {
    return res.status(400).end();
  }
  // ok: js-path-traversal-request-path, js-ssrf-request-url, js-xss-html-from-input
  await axios.post(target);
});
