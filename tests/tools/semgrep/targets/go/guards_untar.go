// Guards and sinks of the Go request-flow rules (issue 22, CodeQL's Go models): each flagged
// function has a guarded twin that stays quiet; a look-alike guard, which proves nothing of the
// sink's kind or does not control the path to it, does not (issue 27).
package untar

import (
	"archive/tar"
	"archive/zip"
)

func extractTar(tr *tar.Reader, dest string) error {
	for {
		header, err := tr.Next()
		if err != nil {
			return err
		}
		// ruleid: go-path-traversal-archive-entry
		target := filepath.Join(dest, header.Name)
		// ruleid: go-path-traversal-archive-entry
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		// ruleid: go-path-traversal-archive-entry
		f, _ := os.Create(target)
		io.Copy(f, tr)
	}
}

func extractTarChecked(tr *tar.Reader, dest string) error {
	for {
		header, err := tr.Next()
		if err != nil {
			return err
		}
		target := filepath.Join(dest, header.Name)
		if !strings.HasPrefix(target, filepath.Clean(dest)+string(os.PathSeparator)) {
			continue
		}
		// ok: go-path-traversal-archive-entry
		f, _ := os.Create(target)
		io.Copy(f, tr)
	}
}

func writeEntry(header *tar.Header, dest string) error {
	// ruleid: go-path-traversal-archive-entry
	return os.MkdirAll(filepath.Join(dest, header.Name), 0o755)
}

func writeEntrySecure(header *tar.Header, dest string) error {
	p, err := securejoin.SecureJoin(dest, header.Name)
	if err != nil {
		return err
	}
	// ok: go-path-traversal-archive-entry
	return os.MkdirAll(p, 0o755)
}

func unzip(zr *zip.Reader, dest string) {
	for _, f := range zr.File {
		// ruleid: go-path-traversal-archive-entry
		path := filepath.Join(dest, f.Name)
		// ruleid: go-path-traversal-archive-entry
		out, _ := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, f.Mode())
		_ = out
	}
}

func unzipLocal(zr *zip.Reader, dest string) {
	for _, f := range zr.File {
		if !filepath.IsLocal(f.Name) {
			continue
		}
		// ok: go-path-traversal-archive-entry
		out, _ := os.Create(filepath.Join(dest, f.Name))
		_ = out
	}
}

func zipEntry(f *zip.File, dest string) {
	// ruleid: go-path-traversal-archive-entry
	os.WriteFile(filepath.Join(dest, f.Name), nil, 0o600)
}

func writeOut(filePath string, f *zip.File) error {
	out, err := os.OpenFile(filePath, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return out.Close()
}

func unzipAll(r *zip.Reader, dest string) error {
	for _, f := range r.File {
		// ruleid: go-path-traversal-archive-entry
		if err := writeOut(filepath.Join(dest, f.Name), f); err != nil {
			return err
		}
	}
	return nil
}

func unzipGuarded(r *zip.Reader, dest string) error {
	for _, f := range r.File {
		target := filepath.Join(dest, f.Name)
		if !strings.HasPrefix(target, dest+string(os.PathSeparator)) {
			continue
		}
		// ok: go-path-traversal-archive-entry
		if err := writeOut(target, f); err != nil {
			return err
		}
	}
	return nil
}

func extractDerived(tr *tar.Reader, dest string) error {
	for {
		header, err := tr.Next()
		if err != nil {
			return err
		}
		checked := filepath.Clean(filepath.Join(dest, header.Name))
		if !strings.HasPrefix(checked, dest) {
			continue
		}
		// ok: go-path-traversal-archive-entry
		os.MkdirAll(filepath.Join(dest, filepath.Dir(header.Name)), 0o755)
	}
}

func rowsLoop(rows *sql.Rows) {
	for rows.Next() {
		var name string
		// ok: go-path-traversal-archive-entry
		os.Open(name)
	}
}
