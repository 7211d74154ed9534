// Request data to Go sinks (CodeQL's Go models), each beside a safe look-alike; a helper of
// another file whose name says it sanitises proves nothing (issue 27).
package store

type QueryBuilder struct {
	sortExpressions []string
	conditions      []string
	args            []any
}

func (q *QueryBuilder) WithSorting(column, direction string) *QueryBuilder {
	// ruleid: go-sql-injection-builder-concat
	q.sortExpressions = append(q.sortExpressions, column+" "+direction)
	return q
}

func (q *QueryBuilder) WithQuotedSorting(column string) *QueryBuilder {
	// ok: go-hardcoded-secret-default-credential, go-insecure-config-cors, go-sql-injection-builder-concat, go-weak-crypto-pbkdf2-low-iterations
	q.sortExpressions = append(q.sortExpressions, pq.QuoteIdentifier(column)+" ASC")
	return q
}

func (q *QueryBuilder) WithTitle(title string) *QueryBuilder {
	// ok: go-hardcoded-secret-default-credential, go-insecure-config-cors, go-sql-injection-builder-concat, go-weak-crypto-pbkdf2-low-iterations
	q.conditions = append(q.conditions, fmt.Sprintf("title = $%d", len(q.args)+1))
	q.args = append(q.args, title)
	return q
}

func createAdmin() User {
	return User{
		Username: "admin",
		// ruleid: go-hardcoded-secret-default-credential
		Hash:     "$2a$10$IYkPp0.QsM81lYYPrQx6W.U6oQGw7wMpozrKhKAHUBVL4mkm/EvAS",
	}
}

func createOperator(password string) Account {
	// ruleid: go-hardcoded-secret-default-credential
	return Account{Name: "operator", Password: "changeme"}
}

func createUser(password string) Account {
	// ok: go-hardcoded-secret-default-credential, go-insecure-config-cors, go-sql-injection-builder-concat, go-weak-crypto-pbkdf2-low-iterations
	return Account{Name: "user", Password: password}
}

func checksum() File {
	// ok: go-hardcoded-secret-default-credential, go-insecure-config-cors, go-sql-injection-builder-concat, go-weak-crypto-pbkdf2-low-iterations
	return File{Name: "a.txt", Hash: "d41d8cd98f00b204e9800998ecf8427e"}
}

func deriveKey(password, salt []byte) []byte {
	// ruleid: go-weak-crypto-pbkdf2-low-iterations
	return pbkdf2.Key(password, salt, 4096, 32, sha256.New)
}

func deriveKeyStrongly(password, salt []byte) []byte {
	// ok: go-hardcoded-secret-default-credential, go-insecure-config-cors, go-sql-injection-builder-concat, go-weak-crypto-pbkdf2-low-iterations
	return pbkdf2.Key(password, salt, 600000, 32, sha256.New)
}

func corsConfig() cors.Config {
	// ruleid: go-insecure-config-cors
	return cors.Config{AllowAllOrigins: true, AllowCredentials: true}
}

func corsListedConfig() cors.Config {
	// ok: go-hardcoded-secret-default-credential, go-insecure-config-cors, go-sql-injection-builder-concat, go-weak-crypto-pbkdf2-low-iterations
	return cors.Config{AllowOrigins: []string{"https://app.example"}, AllowCredentials: true}
}
