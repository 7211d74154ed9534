// Guards and sinks of the Go request-flow rules (issue 22, CodeQL's Go models): each flagged
// function has a guarded twin that stays quiet; a look-alike guard, which proves nothing of the
// sink's kind or does not control the path to it, does not (issue 27).
package store

func get(db *sql.DB, table, key string) {
	query := fmt.Sprintf("SELECT val FROM '%s' WHERE key='%s';", table, key)
	// ruleid: go-sql-injection-formatted-query
	row := db.QueryRow(query)
	_ = row
}

func (s *Store) getBound(db *sql.DB, key string) {
	query := fmt.Sprintf("SELECT val FROM '%s' WHERE key=?;", s.table)
	// ok: go-sql-injection-formatted-query
	stmt, _ := db.Prepare(query)
	row := stmt.QueryRow(key)
	_ = row
}

func fetchItem(id string) {
	// ok: go-sql-injection-formatted-query
	resp, _ := http.Get("https://api.example.com/items/" + id)
	_ = resp
}
