//! Citation precision: every sentence–citation pair of an answer, judged by the one definition
//! of "a passage supports a sentence" that the validate stage also applies
//! ([`crate::orchestrator::stages::validate::support`]: the sentence's figures, dates and names
//! appear in the passage as its citation shows it — date, title, section, text — with half its
//! content words). Precision is supported pairs over all pairs.

use crate::index::Passage;
use crate::orchestrator::citations::{numbers, without_markers};
use crate::orchestrator::stages::validate::support::passage_supports;
/// Whether a passage supports a sentence: the validate stage's rule, under the name eval uses.
pub use crate::orchestrator::stages::validate::support::passage_supports as supports;
use crate::orchestrator::text::sentences;
use crate::orchestrator::types::Citation;

/// One `[n]` on one sentence, and whether passage n supports the sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub sentence: String,
    pub n: usize,
    pub supported: bool,
}

/// Every sentence–citation pair of `answer`, judged against the cited passages; a marker with
/// no citation or no passage is unsupported.
pub fn citation_pairs(
    answer: &str,
    citations: &[Citation],
    passage: &dyn Fn(&str) -> Option<Passage>,
) -> Vec<Pair> {
    let mut out = Vec::new();
    for line in answer.lines() {
        for s in sentences(line) {
            let plain = without_markers(s);
            for n in numbers(s) {
                let supported = citations
                    .iter()
                    .find(|c| c.n == n)
                    .and_then(|c| passage(&c.chunk_id))
                    .is_some_and(|p| passage_supports(&p, &plain));
                out.push(Pair {
                    sentence: plain.clone(),
                    n,
                    supported,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Date;

    fn passage(text: &str, date: &str) -> Passage {
        let d = Date::parse(date);
        Passage {
            chunk_id: "c1".into(),
            date: d,
            year: d.map(|d| d.year),
            text: text.into(),
            ..Passage::default()
        }
    }

    #[test]
    fn figures_dates_and_names_must_appear() {
        let p = passage(
            "The Committee decided to raise the target range to 1-1/2 to 1-3/4 percent. Voting against the action was Esther L. George.",
            "2018-03-21",
        );
        let ok = |s: &str| passage_supports(&p, s);
        assert!(ok("- March 21, 2018: The Committee decided to raise the target range to 1-1/2 to 1-3/4 percent."));
        assert!(
            !ok("The Committee raised the target range to 1-3/4 to 2 percent."),
            "another figure"
        );
        assert!(
            !ok("In June 2018 the Committee raised the target range."),
            "another date"
        );
        assert!(ok("Voting against the action was Esther L. George."));
        assert!(
            !ok("Voting against the action was Loretta J. Mester."),
            "another name"
        );
    }

    #[test]
    fn every_marker_is_a_pair() {
        let p1 = passage("The rate was cut to 0 to 1/4 percent.", "2020-03-15");
        let p2 = passage("Markets were strained.", "2020-03-15");
        let cite = |n: usize, id: &str| Citation {
            n,
            chunk_id: id.into(),
            document: "d".into(),
            date: None,
            section: None,
            score: 1.0,
        };
        let cites = vec![cite(1, "a"), cite(2, "b")];
        let get = |id: &str| Some(if id == "a" { p1.clone() } else { p2.clone() });
        let pairs = citation_pairs(
            "The rate was cut to 0 to 1/4 percent [1][2]. Ghost [3].",
            &cites,
            &get,
        );
        assert_eq!(pairs.len(), 3);
        assert!(pairs[0].supported);
        assert!(!pairs[1].supported, "passage 2 does not state the figure");
        assert!(!pairs[2].supported, "no citation [3]");
    }
}
