//! Finding the documents of a corpus folder.

use super::CorpusError;
use std::path::{Path, PathBuf};

/// The files of a corpus folder that fathom can read, in a stable (sorted) order.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    pub files: Vec<PathBuf>,
    /// Entries that could not be listed (permissions, broken links): reported, never fatal.
    pub skipped: Vec<SkippedFile>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SkippedFile {
    pub path: PathBuf,
    pub reason: String,
}

const EXTENSIONS: [&str; 5] = ["md", "markdown", "txt", "html", "htm"];

pub fn is_supported(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// A dot-named entry below the root (the root itself may be hidden: the user chose it).
fn is_hidden(entry: &walkdir::DirEntry) -> bool {
    entry.depth() > 0 && entry.file_name().as_encoded_bytes().starts_with(b".")
}

/// Walks `root` for `.md`, `.markdown`, `.txt`, `.html` and `.htm` files (hidden entries skipped),
/// sorted by path. Links are followed; a broken link or a loop is reported in `skipped`.
pub fn discover(root: &Path) -> Result<Discovered, CorpusError> {
    if !root.is_dir() {
        return Err(CorpusError::NoSuchFolder {
            path: root.to_path_buf(),
        });
    }
    let mut found = Discovered::default();
    let walker = walkdir::WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter();
    for entry in walker.filter_entry(|e| !is_hidden(e)) {
        match entry {
            Ok(e) if e.file_type().is_file() && is_supported(e.path()) => {
                found.files.push(e.into_path())
            }
            Ok(_) => {}
            Err(err) => {
                let path = err
                    .path()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| root.to_path_buf());
                found.skipped.push(SkippedFile {
                    path,
                    reason: err.to_string(),
                });
            }
        }
    }
    found.files.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_supported_files_sorted_and_skips_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        for f in [
            "b.md",
            "a.TXT",
            "sub/c.html",
            "d.pdf",
            ".hidden.md",
            ".git/e.md",
            "sub/f.htm",
            "g.markdown",
        ] {
            std::fs::write(root.join(f), "x").unwrap();
        }
        let found = discover(root).unwrap();
        let names: Vec<String> = found
            .files
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            vec!["a.TXT", "b.md", "g.markdown", "sub/c.html", "sub/f.htm"]
        );
        assert!(found.skipped.is_empty());
    }

    #[test]
    fn a_missing_folder_is_an_error() {
        let err = discover(Path::new("/definitely/not/here")).unwrap_err();
        assert!(matches!(err, CorpusError::NoSuchFolder { .. }));
    }

    #[test]
    fn a_file_is_not_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.md");
        std::fs::write(&file, "x").unwrap();
        assert!(matches!(
            discover(&file),
            Err(CorpusError::NoSuchFolder { .. })
        ));
    }

    #[test]
    fn a_hidden_root_is_still_walked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(".corpus");
        std::fs::create_dir_all(root.join("2021")).unwrap();
        std::fs::write(root.join("2021/b.md"), "x").unwrap();
        std::fs::write(root.join("2021/a.md"), "x").unwrap();
        std::fs::write(root.join("2021/.draft.md"), "x").unwrap();
        let found = discover(&root).unwrap();
        assert_eq!(
            found.files,
            vec![root.join("2021/a.md"), root.join("2021/b.md")]
        );
    }

    #[test]
    fn a_link_loop_is_reported_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/ok.md"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path(), dir.path().join("sub/loop")).unwrap();
        let found = discover(dir.path()).unwrap();
        assert_eq!(found.files, vec![dir.path().join("sub/ok.md")]);
        assert_eq!(found.skipped.len(), 1);
        assert!(!found.skipped[0].reason.is_empty());
    }

    #[test]
    fn a_broken_link_is_reported_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ok.md"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("gone"), dir.path().join("broken.md")).unwrap();
        let found = discover(dir.path()).unwrap();
        assert_eq!(found.files.len(), 1);
        assert_eq!(found.skipped.len(), 1);
    }
}
