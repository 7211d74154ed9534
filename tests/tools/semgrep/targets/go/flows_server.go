// Request data to Go sinks, and their safe look-alikes: math/rand for a non-secret, a constant
// template.URL, an empty or non-secret flag default, a bound placeholder, and a URL used only
// after its check (checkedURL: nothing in its body is reported).
package server

import (
	"flag"
	"fmt"
	"html/template"
	"math/rand"
	"time"
)

func verificationCode(length int) string {
	// ruleid: go-weak-crypto-math-rand-secret
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	digits := make([]byte, length)
	for i := range digits {
		digits[i] = byte('0' + r.Intn(10))
	}
	return string(digits)
}

func retryDelay() time.Duration {
	// ok: go-hardcoded-secret-flag-default, go-open-redirect-request-url, go-sql-injection-formatted-query, go-weak-crypto-math-rand-secret, go-xss-template-trusted-type
	return time.Duration(rand.Intn(100)) * time.Millisecond
}

func trustedURL(link string) template.URL {
	// ruleid: go-xss-template-trusted-type
	return template.URL(link)
}

func checkedURL(raw string) template.URL {
	if !hasAllowedScheme(raw) {
		// ok: go-hardcoded-secret-flag-default, go-open-redirect-request-url, go-sql-injection-formatted-query, go-weak-crypto-math-rand-secret, go-xss-template-trusted-type
		return template.URL("#")
	}
	// ruleid: go-xss-template-trusted-type
	// ok: go-hardcoded-secret-flag-default, go-open-redirect-request-url, go-sql-injection-formatted-query, go-weak-crypto-math-rand-secret
	return template.URL(raw)
}

func registerFlags(f *flag.FlagSet, c *Config) {
	// ruleid: go-hardcoded-secret-flag-default
	f.StringVar(&c.JwtSecret, "jwt-secret", "random key", "The secret that signs tokens")
	// ok: go-hardcoded-secret-flag-default, go-open-redirect-request-url, go-sql-injection-formatted-query, go-weak-crypto-math-rand-secret, go-xss-template-trusted-type
	f.StringVar(&c.Host, "host", "localhost", "The address to listen on")
	// ok: go-hardcoded-secret-flag-default, go-open-redirect-request-url, go-sql-injection-formatted-query, go-weak-crypto-math-rand-secret, go-xss-template-trusted-type
	f.StringVar(&c.APIToken, "api-token", "", "The token for the upstream API")
}

func addSlash(c echo.Context) error {
	u := c.Request().URL
	// ruleid: go-open-redirect-request-url
	return c.Redirect(301, u.Path+"/")
}

func addSlashSafely(c echo.Context) error {
	u := c.Request().URL
	// ruleid: go-open-redirect-request-url
	return c.Redirect(301, sanitizeURI(u.Path+"/"))
}

func filterBy(session *xorm.Session, field, value string) *xorm.Session {
	// ruleid: go-sql-injection-formatted-query
	session = session.And(fmt.Sprintf("%s like ?", field), "%"+value+"%")
	// ok: go-hardcoded-secret-flag-default, go-open-redirect-request-url, go-sql-injection-formatted-query, go-weak-crypto-math-rand-secret, go-xss-template-trusted-type
	return session.And("name like ?", "%"+value+"%")
}
