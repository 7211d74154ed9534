// One request value into each sink shape of the Go rules that no other target shows: a
// shape that matched nothing would fail here (a condition beside an either once silenced
// whole sink lists; tests/tools/semgrep/test_rule_conditions.py).
package each

import (
	"fmt"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
)

func serveFile(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-path-traversal-request-path
	http.ServeFile(w, r, r.PostFormValue("file"))
}

func dialSocket(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-ssrf-request-url
	conn, _, _ := websocket.DefaultDialer.Dial(r.FormValue("ws"), nil)
	conn.Close()
}

func dialSocketContext(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-ssrf-request-url
	conn, _, _ := websocket.DefaultDialer.DialContext(r.Context(), r.FormValue("ws"), nil)
	conn.Close()
}

func headURL(w http.ResponseWriter, r *http.Request) {
	hc := &http.Client{}
	// ruleid: go-ssrf-request-url
	hc.Head(r.FormValue("url"))
}

func postURL(w http.ResponseWriter, r *http.Request) {
	var hc *http.Client = &http.Client{}
	// ruleid: go-ssrf-request-url
	hc.Post(r.FormValue("url"), "text/plain", nil)
}

func postFormURL(w http.ResponseWriter, r *http.Request, hc *http.Client) {
	// ruleid: go-ssrf-request-url
	hc.PostForm(r.FormValue("url"), nil)
}

func backToReferer(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-open-redirect-request-url
	http.Redirect(w, r, r.Referer(), http.StatusFound)
}

func echoPath(c echo.Context) error {
	// ruleid: go-open-redirect-request-url
	return c.Redirect(http.StatusFound, c.Request().URL.Path)
}

func greetLine(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-xss-unescaped-html
	fmt.Fprintln(w, "<p>", r.FormValue("name"), "</p>")
}

func greetString(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-xss-unescaped-html
	io.WriteString(w, "<p>"+r.FormValue("name"))
}

func greetGin(c *gin.Context) {
	// ruleid: go-xss-unescaped-html
	c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(c.Query("name")))
}
