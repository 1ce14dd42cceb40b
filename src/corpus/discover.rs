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

/// Where links (symbolic links) may lead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkPolicy {
    /// Only to files and folders inside the corpus folder; a link out is skipped and reported.
    /// A corpus downloaded from elsewhere cannot pull in, say, `~/notes` this way.
    #[default]
    InsideRoot,
    /// Anywhere (`corpus.follow_links_outside = true`).
    Anywhere,
}

impl LinkPolicy {
    /// The policy `corpus.follow_links_outside` asks for.
    pub fn from_config(cfg: &crate::config::CorpusConfig) -> LinkPolicy {
        if cfg.follow_links_outside {
            LinkPolicy::Anywhere
        } else {
            LinkPolicy::InsideRoot
        }
    }
}

/// Walks `root` for `.md`, `.markdown`, `.txt`, `.html` and `.htm` files (hidden entries skipped),
/// sorted by path. Links are followed only while they stay inside `root`
/// ([`LinkPolicy::InsideRoot`]); a link out, a broken link or a loop is reported in `skipped`.
pub fn discover(root: &Path) -> Result<Discovered, CorpusError> {
    discover_with(root, LinkPolicy::InsideRoot)
}

/// [`discover`] with the given link policy.
pub fn discover_with(root: &Path, links: LinkPolicy) -> Result<Discovered, CorpusError> {
    if !root.is_dir() {
        return Err(CorpusError::NoSuchFolder {
            path: root.to_path_buf(),
        });
    }
    // The real root: the user may have chosen it through a link, which is fine.
    let real_root = std::fs::canonicalize(root).map_err(|_| CorpusError::NoSuchFolder {
        path: root.to_path_buf(),
    })?;
    let mut found = Discovered::default();
    let mut walker = walkdir::WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = walker.next() {
        match entry {
            Ok(e) if is_hidden(&e) => {
                if e.file_type().is_dir() {
                    walker.skip_current_dir();
                }
            }
            // Only a link can lead out: everything else below the root is inside it. A link
            // inside that leads to a link out is caught too, since the whole chain is resolved.
            Ok(e)
                if links == LinkPolicy::InsideRoot
                    && e.path_is_symlink()
                    && !leads_inside(e.path(), &real_root) =>
            {
                if e.file_type().is_dir() {
                    walker.skip_current_dir();
                }
                if e.file_type().is_dir() || is_supported(e.path()) {
                    found.skipped.push(SkippedFile {
                        path: e.into_path(),
                        reason: "a link to outside the corpus folder: not followed (set \
                                 corpus.follow_links_outside = true to index what it points to)"
                            .into(),
                    });
                }
            }
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

/// Whether the link at `path` resolves to somewhere inside `real_root` (itself resolved).
fn leads_inside(path: &Path, real_root: &Path) -> bool {
    std::fs::canonicalize(path).is_ok_and(|target| target.starts_with(real_root))
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
    fn links_out_of_the_root_are_skipped_unless_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("corpus");
        let outside = dir.path().join("notes");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("a.md"), "x").unwrap();
        std::fs::write(root.join("sub/b.md"), "x").unwrap();
        std::fs::write(outside.join("private.md"), "my notes").unwrap();
        std::fs::write(dir.path().join("diary.txt"), "dear diary").unwrap();
        let link =
            |target: &Path, at: &str| std::os::unix::fs::symlink(target, root.join(at)).unwrap();
        // Out: a folder, a file, a relative link climbing out, and a link to a link out.
        link(&outside, "notes");
        link(&dir.path().join("diary.txt"), "diary.txt");
        std::os::unix::fs::symlink("../../notes/private.md", root.join("sub/up.md")).unwrap();
        link(&root.join("diary.txt"), "again.txt");
        // In: links that stay inside are followed as before.
        link(&root.join("sub"), "alias");
        link(&root.join("a.md"), "a-link.md");

        let rel = |files: &[std::path::PathBuf]| -> Vec<String> {
            files
                .iter()
                .map(|p| {
                    p.strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect()
        };
        let found = discover(&root).unwrap();
        assert_eq!(
            rel(&found.files),
            ["a-link.md", "a.md", "alias/b.md", "sub/b.md"]
        );
        let skipped: Vec<String> = rel(&found
            .skipped
            .iter()
            .map(|s| s.path.clone())
            .collect::<Vec<_>>());
        // `alias/up.md` is `sub/up.md` seen through the link that stays inside: still out.
        assert_eq!(
            skipped,
            [
                "again.txt",
                "alias/up.md",
                "diary.txt",
                "notes",
                "sub/up.md"
            ]
        );
        assert!(found.skipped[0]
            .reason
            .contains("corpus.follow_links_outside"));

        let all = discover_with(&root, LinkPolicy::Anywhere).unwrap();
        assert_eq!(
            rel(&all.files),
            [
                "a-link.md",
                "a.md",
                "again.txt",
                "alias/b.md",
                "alias/up.md",
                "diary.txt",
                "notes/private.md",
                "sub/b.md",
                "sub/up.md"
            ]
        );
        assert!(all.skipped.is_empty(), "{:?}", all.skipped);
    }

    #[test]
    fn a_root_reached_through_a_link_is_still_inside() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir_all(&real).unwrap();
        std::fs::write(real.join("a.md"), "x").unwrap();
        let via = dir.path().join("via");
        std::os::unix::fs::symlink(&real, &via).unwrap();
        let found = discover(&via).unwrap();
        assert_eq!(found.files, vec![via.join("a.md")]);
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
