// Request data destructured from a type assertion to an object literal type, TypeScript's idiom
// for a typed body: semgrep-core lost the flow until the copy it reads wrote `any` for such a
// type (rewrites/type_assertions.py). Guards and sanitisers count as they do without the type.
import express, { Request, Response } from "express";
import { exec } from "child_process";
import path from "path";

const app = express();

app.post("/fetch", async (req: Request, res: Response) => {
  const { url } = req.body as { url: string };
  // ruleid: js-ssrf-request-url
  const r = await fetch(url);
  res.send(await r.text());
});

app.get("/run", (req: Request, res: Response) => {
  const { cmd } = req.query as { cmd: string } | undefined;
  // ruleid: js-command-injection-exec
  exec(cmd);
  res.end();
});

app.get("/file", (req: Request, res: Response) => {
  const { name } = req.query satisfies {
    name: string;
  };
  // ruleid: js-path-traversal-request-path
  res.sendFile(path.join("/srv/files", name));
});

app.get("/next", (req: Request, res: Response) => {
  const { next } = <{ next: string }>req.query;
  // ruleid: js-open-redirect-request-url
  res.redirect(next);
});

app.get("/file-checked", (req: Request, res: Response) => {
  const { name } = req.query as { name: string };
  const root = path.resolve(__dirname, "public");
  const full = path.resolve(root, name);
  if (!full.startsWith(root + path.sep)) {
    return res.status(400).end();
  }
  // ok: js-path-traversal-request-path
  res.sendFile(full);
});

app.get("/fixed", async (req: Request, res: Response) => {
  const { url } = req.body as { url: string };
  // ok: js-ssrf-request-url
  const r = await fetch("https://api.example.com/items");
  res.send(await r.text() + url.length);
});
