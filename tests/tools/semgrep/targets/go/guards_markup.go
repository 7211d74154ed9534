// Guards and sinks of the Go request-flow rules (issue 22, CodeQL's Go models): each flagged
// function has a guarded twin that stays quiet; a look-alike guard, which proves nothing of the
// sink's kind or does not control the path to it, does not (issue 27).
package markup

func inputField(label, name string, value any, id string) string {
	if id != "" {
		id = " id=\"" + id + "\""
	}
	// ruleid: go-xss-html-format-parameter
	return fmt.Sprintf(`%v<input%v name="%v" value="%v">`, label, id, name, value)
}

func inputFieldEscaped(label, name string, id string) string {
	safeID, safeName := template.HTMLEscapeString(id), html.EscapeString(name)
	// ok: go-command-injection-shell, go-xss-html-format-parameter
	return fmt.Sprintf(`%v<input id="%v" name="%v">`, html.EscapeString(label), safeID, safeName)
}

func callbackPage(path, code string) string {
	// ok: go-command-injection-shell, go-xss-html-format-parameter
	return fmt.Sprintf("<script>post({path: %s, code: %s})</script>", jsStr(path), jsStr(code))
}

func logLine(user string) string {
	// ok: go-command-injection-shell, go-xss-html-format-parameter
	return fmt.Sprintf("user %s logged in", user)
}

func resize(p string) error {
	// ruleid: go-command-injection-shell
	return exec.Command("powershell", []string{"-command", fmt.Sprintf("Resize %s", p)}...).Run()
}

func listVMs() error {
	// ok: go-command-injection-shell, go-xss-html-format-parameter
	return exec.Command("powershell", []string{"-command", "Get-VM"}...).Run()
}

func resizeBy(n int) error {
	// ok: go-command-injection-shell, go-xss-html-format-parameter
	return exec.Command("powershell", "-command", fmt.Sprintf("Resize $ENV:IMG %d", n)).Run()
}

func winRun(line string) error {
	// ruleid: go-command-injection-shell
	return exec.Command("cmd", "/c", line).Run()
}
