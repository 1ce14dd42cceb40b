//! Reading one document: bytes → UTF-8 text, date, title, plain text with `#` headings.

use super::{CorpusError, Date};
use sha2::{Digest, Sha256};
use std::path::Path;

/// A document read from the corpus, with its metadata and plain text.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// Path relative to the corpus root, `/`-separated (the document's identity in the index).
    pub path: String,
    /// Title from front matter, the first heading (or `<title>` in HTML), else the file stem.
    pub title: String,
    pub date: Option<Date>,
    pub year: Option<i32>,
    /// Plain text (HTML converted, front matter removed); headings kept as `#` lines.
    pub text: String,
    /// sha256 of the file's bytes, lowercase hex: the manifest's change detector.
    pub hash: String,
}

/// Reads and parses one file under `root`.
pub fn load_document(root: &Path, path: &Path) -> Result<Document, CorpusError> {
    let bytes = std::fs::read(path).map_err(|source| CorpusError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    let hash = hex(&Sha256::digest(&bytes));
    let raw = std::str::from_utf8(&bytes).map_err(|_| CorpusError::NotUtf8 {
        path: path.to_path_buf(),
    })?;
    let raw = raw
        .strip_prefix('\u{feff}')
        .unwrap_or(raw)
        .replace("\r\n", "\n");
    let rel = path.strip_prefix(root).unwrap_or(path);
    let rel_str = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let is_html = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"));

    let (front, body) = split_front_matter(&raw);
    let (html_title, text) = if is_html {
        super::html::to_text(body)
    } else {
        (None, body.to_string())
    };
    let date = date_from_name(&file_name)
        .or_else(|| front_value(front, "date").and_then(|v| v.get(..10).and_then(Date::parse)));
    let title = front_value(front, "title")
        .filter(|t| !t.is_empty())
        .or(html_title)
        .or_else(|| first_heading(&text))
        .unwrap_or(stem);
    Ok(Document {
        path: rel_str,
        title,
        date,
        year: date.map(|d| d.year),
        text,
        hash,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A `YYYY-MM-DD` prefix of the file name.
fn date_from_name(name: &str) -> Option<Date> {
    name.get(..10).and_then(Date::parse)
}

/// Splits `---\n...\n---\n` front matter from the body.
fn split_front_matter(text: &str) -> (Option<&str>, &str) {
    let Some(rest) = text.strip_prefix("---\n") else {
        return (None, text);
    };
    match rest.find("\n---") {
        Some(end) => {
            let after = &rest[end + 4..];
            let body = after.split_once('\n').map(|(_, b)| b).unwrap_or("");
            (Some(&rest[..end]), body)
        }
        None => (None, text),
    }
}

/// The value of `key:` in front matter, unquoted.
fn front_value(front: Option<&str>, key: &str) -> Option<String> {
    front?.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim().eq_ignore_ascii_case(key))
            .then(|| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
    })
}

/// The text of the first Markdown heading.
pub fn first_heading(text: &str) -> Option<String> {
    text.lines()
        .find_map(heading)
        .map(|(_, t)| t.to_string())
        .filter(|t| !t.is_empty())
}

/// `(level, text)` if the line is a Markdown ATX heading.
pub fn heading(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start();
    let level = trimmed.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &trimmed[level..];
    if !rest.is_empty() && !rest.starts_with(' ') && !rest.starts_with('\t') {
        return None;
    }
    Some((level, rest.trim().trim_end_matches('#').trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(name: &str, content: &[u8]) -> Result<Document, CorpusError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        load_document(dir.path(), &path)
    }

    #[test]
    fn date_and_title_from_file_name_and_heading() {
        let d = load(
            "2020-03-15_statement.md",
            b"# Federal Reserve issues FOMC statement\n\nText.",
        )
        .unwrap();
        assert_eq!(d.date, Date::parse("2020-03-15"));
        assert_eq!(d.year, Some(2020));
        assert_eq!(d.title, "Federal Reserve issues FOMC statement");
        assert_eq!(d.path, "2020-03-15_statement.md");
        assert_eq!(d.hash.len(), 64);
    }

    #[test]
    fn front_matter_gives_date_and_title_and_is_removed() {
        let d = load(
            "notes/memo.md",
            b"---\ntitle: \"Budget memo\"\ndate: 2021-05-04T10:00:00\n---\n# Heading\nBody",
        )
        .unwrap();
        assert_eq!(d.date, Date::parse("2021-05-04"));
        assert_eq!(d.title, "Budget memo");
        assert_eq!(d.path, "notes/memo.md");
        assert!(d.text.starts_with("# Heading"));
        // The file name wins over front matter.
        let d = load("2019-01-02_x.md", b"---\ndate: 2021-05-04\n---\nBody").unwrap();
        assert_eq!(d.year, Some(2019));
    }

    #[test]
    fn undated_text_uses_the_stem_as_title() {
        let d = load("plain.txt", b"\xef\xbb\xbfjust words\r\nmore").unwrap();
        assert_eq!(d.date, None);
        assert_eq!(d.title, "plain");
        assert_eq!(d.text, "just words\nmore");
    }

    #[test]
    fn non_utf8_and_missing_files_are_errors() {
        assert!(matches!(
            load("bad.md", b"caf\xe9"),
            Err(CorpusError::NotUtf8 { .. })
        ));
        let err = load_document(Path::new("/"), Path::new("/no/such/file.md")).unwrap_err();
        assert!(matches!(err, CorpusError::Unreadable { .. }));
        assert!(err.to_string().contains("/no/such/file.md"));
    }

    #[test]
    fn html_title_and_text() {
        let d = load("2022-01-01_page.html", b"<html><head><title>Page &amp; title</title></head><body><h2>Sec</h2><p>A&nbsp;b</p></body></html>").unwrap();
        assert_eq!(d.title, "Page & title");
        assert!(d.text.contains("## Sec"));
        assert!(d.text.contains("A b"));
    }

    #[test]
    fn headings_need_a_space() {
        assert_eq!(heading("## Policy"), Some((2, "Policy")));
        assert_eq!(heading("#hashtag"), None);
        assert_eq!(heading("####### seven"), None);
    }
}
