// A receiver named like a client is not another server: what it returns of the request is
// still request data; an http.Client's response (proxyReal, proxyParam, proxyDefault) is not.
package proxy

type echoClient struct{}

func (c echoClient) Get(s string) string { return s }
func (c echoClient) Do(s string) string  { return s }

type server struct{ upstream echoClient }

var client = &http.Client{Timeout: 5 * time.Second}
var apiClient = echoClient{}

func proxyReal(w http.ResponseWriter, r *http.Request) {
	resp, _ := client.Get("https://api.example.com/v1?q=" + r.FormValue("q"))
	// ruleid: go-error-handling-discarded
	body, _ := io.ReadAll(resp.Body)
	// ok: go-xss-unescaped-html
	w.Write(body)
}

func proxyParam(w http.ResponseWriter, r *http.Request, hc *http.Client) {
	// todook: go-sql-injection-formatted-query
	resp, _ := hc.Get("https://api.example.com/v2?q=" + r.FormValue("q"))
	// ruleid: go-error-handling-discarded
	body, _ := io.ReadAll(resp.Body)
	// ok: go-xss-unescaped-html
	w.Write(body)
}

func proxyDefault(w http.ResponseWriter, r *http.Request) {
	resp, _ := http.DefaultClient.Get("https://api.example.com/v3?q=" + r.FormValue("q"))
	// ruleid: go-error-handling-discarded
	body, _ := io.ReadAll(resp.Body)
	// ok: go-xss-unescaped-html
	w.Write(body)
}

func echoLocal(w http.ResponseWriter, r *http.Request) {
	myClient := echoClient{}
	// ruleid: go-ssrf-request-url, go-xss-unescaped-html
	w.Write([]byte(myClient.Get(r.FormValue("a"))))
}

func echoGlobal(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-xss-unescaped-html
	w.Write([]byte(apiClient.Do(r.FormValue("b"))))
}

func (s *server) echoField(w http.ResponseWriter, r *http.Request) {
	// ruleid: go-xss-unescaped-html
	w.Write([]byte(s.upstream.Get(r.FormValue("c"))))
}
