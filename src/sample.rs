//! A small sample corpus compiled into the binary, so a first run has something to ask about.

use std::path::Path;

const FILES: [(&str, &str); 4] = [
    (
        "2026-11-01_getting-started.md",
        include_str!("../assets/sample/2026-11-01_getting-started.md"),
    ),
    (
        "2026-11-08_searching.md",
        include_str!("../assets/sample/2026-11-08_searching.md"),
    ),
    (
        "2026-11-15_answers-and-confidence.md",
        include_str!("../assets/sample/2026-11-15_answers-and-confidence.md"),
    ),
    (
        "2026-11-20_configuration.md",
        include_str!("../assets/sample/2026-11-20_configuration.md"),
    ),
];

/// Writes the sample documents into `dir` (created if needed), leaving identical files untouched
/// so the index sees them as unchanged.
pub fn write_sample_corpus(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in FILES {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
            std::fs::write(&path, text)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn sample_is_written_once_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        super::write_sample_corpus(dir.path()).unwrap();
        let p = dir.path().join("2026-11-08_searching.md");
        let before = std::fs::metadata(&p).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        super::write_sample_corpus(dir.path()).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().modified().unwrap(), before);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4);
    }
}
