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
    // Hash the raw bytes, so any change to the file (even BOM or line endings) re-indexes it.
    let hash = hex(&Sha256::digest(&bytes));
    let raw = std::str::from_utf8(&bytes).map_err(|_| CorpusError::NotUtf8 {
        path: path.to_path_buf(),
    })?;
    let raw = normalise_newlines(raw.strip_prefix('\u{feff}').unwrap_or(raw));
    let file_name = lossy(path.file_name());
    let stem = lossy(path.file_stem());

    let (front, body) = split_front_matter(&raw);
    let (text, heading_title) = if is_html(path) {
        let (title, text) = super::html::to_text(body);
        // An HTML page without `<title>` is named by its first `<h1>` only.
        let title = title.or_else(|| first_heading_at(&text, Some(1)));
        (text, title)
    } else {
        (body.to_string(), first_heading(body))
    };
    // The file name wins: it is what the user sees and sorts by.
    let date =
        date_from_name(&file_name).or_else(|| front_value(front, "date").and_then(front_date));
    let title = front_value(front, "title")
        .filter(|t| !t.is_empty())
        .or(heading_title)
        .unwrap_or(stem);
    Ok(Document {
        path: relative_path(root, path),
        title,
        date,
        year: date.map(|d| d.year),
        text,
        hash,
    })
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

fn lossy(name: Option<&std::ffi::OsStr>) -> String {
    name.map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn is_html(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"))
}

/// CRLF (and stray CR) to LF, so byte offsets and line splitting see one convention.
fn normalise_newlines(s: &str) -> String {
    if s.contains('\r') {
        s.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        s.to_string()
    }
}

/// `path` relative to `root`, `/`-separated; a path outside `root` is kept whole.
fn relative_path(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.to_string_lossy().replace('\\', "/"),
    }
}

/// A `YYYY-MM-DD` prefix of the file name, not followed by another digit (`2020-03-150` is no date).
fn date_from_name(name: &str) -> Option<Date> {
    if name.as_bytes().get(10).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    name.get(..10).and_then(Date::parse)
}

/// A front-matter date: `2021-05-04`, or a timestamp such as `2021-05-04T10:00:00`.
fn front_date(value: String) -> Option<Date> {
    value.get(..10).and_then(Date::parse)
}

/// Splits YAML front matter (a `---` line first, up to the next `---` or `...` line) from the
/// body. Without a closing line there is no front matter: the `---` is then Markdown.
fn split_front_matter(text: &str) -> (Option<&str>, &str) {
    let Some(rest) = text.strip_prefix("---\n") else {
        return (None, text);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let content = line.trim_end();
        if content == "---" || content == "..." {
            return (Some(&rest[..offset]), &rest[offset + line.len()..]);
        }
        offset += line.len();
    }
    (None, text)
}

/// The value of a top-level `key:` in front matter, unquoted.
fn front_value(front: Option<&str>, key: &str) -> Option<String> {
    front?.lines().find_map(|line| {
        // Indented lines belong to nested mappings, not to the document.
        if line.starts_with([' ', '\t']) {
            return None;
        }
        let (k, v) = line.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case(key)
            .then(|| unquote(v.trim()).to_string())
    })
}

fn unquote(v: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return inner.trim();
        }
    }
    v
}

/// The text of the first Markdown heading of any level.
pub fn first_heading(text: &str) -> Option<String> {
    first_heading_at(text, None)
}

/// The text of the first non-empty heading, of `level` if given.
fn first_heading_at(text: &str, level: Option<usize>) -> Option<String> {
    text.lines()
        .filter_map(heading)
        .find(|(l, t)| !t.is_empty() && level.is_none_or(|want| want == *l))
        .map(|(_, t)| t.to_string())
}

/// `(level, text)` if the line is a Markdown ATX heading: up to three spaces, one to six `#`,
/// then a space or the end of the line. An optional closing run of `#` (after a space) is dropped.
pub fn heading(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None; // Four spaces make an indented code block in Markdown.
    }
    let level = trimmed.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &trimmed[level..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    Some((level, strip_closing_hashes(rest.trim())))
}

/// `Title ##` → `Title`, but `C#` stays `C#`.
fn strip_closing_hashes(s: &str) -> &str {
    let without = s.trim_end_matches('#');
    if without.is_empty() {
        ""
    } else if without.ends_with([' ', '\t']) {
        without.trim_end()
    } else {
        s
    }
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

    #[test]
    fn heading_edge_cases() {
        assert_eq!(heading("## Policy ##"), Some((2, "Policy")));
        assert_eq!(heading("# C#"), Some((1, "C#")));
        assert_eq!(heading("   ### Indented"), Some((3, "Indented")));
        assert_eq!(heading("    # code block"), None);
        assert_eq!(heading("#"), Some((1, "")));
        assert_eq!(heading("Not # a heading"), None);
    }

    #[test]
    fn title_is_the_first_heading_of_any_level() {
        let d = load(
            "notes.md",
            b"Intro line.\n\n## Second level\n\n# First level",
        )
        .unwrap();
        assert_eq!(d.title, "Second level");
        let d = load("notes.txt", b"# Plain text heading\nwords").unwrap();
        assert_eq!(d.title, "Plain text heading");
        let d = load(
            "x.md",
            b"---\ntitle: 'Quoted title'\n---\n# Heading title\n",
        )
        .unwrap();
        assert_eq!(d.title, "Quoted title");
    }

    #[test]
    fn html_without_title_uses_the_first_h1_else_the_stem() {
        let d = load(
            "page.htm",
            b"<body><h2>Minor</h2><h1>Main &lt;one&gt;</h1><p>x</p></body>",
        )
        .unwrap();
        assert_eq!(d.title, "Main <one>");
        let d = load("other-page.HTML", b"<body><h2>Minor</h2><p>x</p></body>").unwrap();
        assert_eq!(d.title, "other-page");
    }

    #[test]
    fn html_is_stripped_and_entities_decoded() {
        let html = b"<html><head><title>T</title><script>var x = 1;</script></head>\
            <body><style>p { color: red }</style><h1>Rates &amp; policy</h1>\
            <p>Range &quot;0 to &frac14;&quot; &#8212; held&#x21;</p><div>Next &#39;block&#39;</div>\
            <ul><li>one</li><li>two</li></ul></body></html>";
        let d = load("2020-03-15_page.html", html).unwrap();
        assert_eq!(
            d.text,
            "# Rates & policy\n\nRange \"0 to \u{bc}\" \u{2014} held!\n\nNext 'block'\n\none\n\ntwo"
        );
        assert!(!d.text.contains("var x") && !d.text.contains("color"));
    }

    #[test]
    fn front_matter_dates() {
        let date = |content: &[u8]| load("memo.md", content).unwrap().date;
        assert_eq!(
            date(b"---\ndate: \"2021-05-04\"\n---\nx"),
            Date::parse("2021-05-04")
        );
        assert_eq!(
            date(b"---\ndate: '2021-05-04 10:00'\n---\nx"),
            Date::parse("2021-05-04")
        );
        assert_eq!(date(b"---\ndate: 2021-02-30\n---\nx"), None);
        assert_eq!(date(b"---\nmeta:\n  date: 2021-05-04\n---\nx"), None);
        // No closing line: not front matter, so nothing is taken from it or removed.
        let d = load("memo.md", b"---\ndate: 2021-05-04\nBody").unwrap();
        assert_eq!(d.date, None);
        assert!(d.text.starts_with("---\n"));
        // Empty front matter is removed.
        assert_eq!(load("memo.md", b"---\n---\nBody").unwrap().text, "Body");
    }

    #[test]
    fn file_name_dates_need_the_exact_prefix() {
        let date = |name: &str| load(name, b"x").unwrap().date;
        assert_eq!(date("2020-03-15.md"), Date::parse("2020-03-15"));
        assert_eq!(date("2020-03-15 minutes.txt"), Date::parse("2020-03-15"));
        assert_eq!(date("2020-03-150.md"), None);
        assert_eq!(date("2020-02-30_x.md"), None);
        assert_eq!(date("x_2020-03-15.md"), None);
    }

    #[test]
    fn a_directory_is_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("folder.md")).unwrap();
        let err = load_document(dir.path(), &dir.path().join("folder.md")).unwrap_err();
        assert!(matches!(err, CorpusError::Unreadable { .. }));
    }

    #[test]
    fn hash_is_of_the_raw_bytes() {
        let a = load("a.md", b"same\n").unwrap();
        let b = load("a.md", b"same\r\n").unwrap();
        assert_eq!(a.text, b.text);
        assert_ne!(a.hash, b.hash);
        // `printf 'same\n' | sha256sum`
        assert_eq!(
            a.hash,
            "a6328afc76e9db71da297ebff4b0d3e7a7eb3b01d917c05a6573fef121b6ecb6"
        );
    }
}
