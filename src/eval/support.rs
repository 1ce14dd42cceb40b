//! Whether a cited passage supports the sentence that cites it: every figure, date and name the
//! sentence states appears in the passage (a date may also be the passage's own, which its
//! Sources line shows). Citation precision is supported sentence–citation pairs over all pairs.

use crate::calendar::month_from_name;
use crate::index::Passage;
use crate::orchestrator::citations::{numbers, without_markers};
use crate::orchestrator::graph::figures::figures;
use crate::orchestrator::text::sentences;
use crate::orchestrator::types::Citation;
use crate::query::date_mentions;

/// One `[n]` on one sentence, and whether passage n supports the sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub sentence: String,
    pub n: usize,
    pub supported: bool,
}

/// Capitalised words that name no one in particular.
const GENERIC: [&str; 24] = [
    "The",
    "Committee",
    "Federal",
    "Reserve",
    "Open",
    "Market",
    "FOMC",
    "Board",
    "Governors",
    "System",
    "Chair",
    "Chairman",
    "Vice",
    "President",
    "Treasury",
    "In",
    "On",
    "At",
    "It",
    "This",
    "That",
    "Meeting",
    "Note",
    "Partial",
];

/// The proper names of a sentence: capitalised words that are not its first word, not month
/// names and not generic institutional words.
fn names(sentence: &str) -> Vec<String> {
    sentence
        .split_whitespace()
        .skip(1)
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| {
            w.len() > 2
                && w.chars().next().is_some_and(char::is_uppercase)
                && w.chars().skip(1).all(|c| c.is_lowercase() || c == '-')
                && month_from_name(w).is_none()
                && !GENERIC.contains(w)
        })
        .map(str::to_string)
        .collect()
}

fn squash(s: &str) -> String {
    s.to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `passage` supports `sentence` (markers already removed).
pub fn supports(passage: &Passage, sentence: &str) -> bool {
    let text = squash(&passage.text);
    let figures_ok = figures(sentence)
        .iter()
        .all(|f| text.contains(&squash(&f.text)));
    let dates_ok = date_mentions(&sentence.to_lowercase())
        .iter()
        .all(|m| passage.date.is_some_and(|d| m.range.contains(d)) || text.contains(&m.text));
    let names_ok = names(sentence)
        .iter()
        .all(|n| passage.text.contains(n.as_str()));
    figures_ok && dates_ok && names_ok
}

/// Every sentence–citation pair of `answer`, judged against the cited passages.
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
                    .is_some_and(|p| supports(&p, &plain));
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
            document: "d.md".into(),
            title: "t".into(),
            date: d,
            year: d.map(|d| d.year),
            section: None,
            text: text.into(),
            byte_start: 0,
            byte_end: text.len(),
        }
    }

    #[test]
    fn figures_dates_and_names_must_appear() {
        let p = passage(
            "The Committee decided to raise the target range to 1-1/2 to 1-3/4 percent. Voting against the action was Esther L. George.",
            "2018-03-21",
        );
        assert!(supports(&p, "- March 21, 2018: The Committee decided to raise the target range to 1-1/2 to 1-3/4 percent."));
        assert!(
            !supports(
                &p,
                "The Committee raised the target range to 1-3/4 to 2 percent."
            ),
            "another figure"
        );
        assert!(
            !supports(&p, "In June 2018 the Committee raised the target range."),
            "another date"
        );
        assert!(supports(
            &p,
            "Voting against the action was Esther L. George."
        ));
        assert!(
            !supports(&p, "Voting against the action was Loretta J. Mester."),
            "another name"
        );
    }

    #[test]
    fn every_marker_is_a_pair() {
        let p1 = passage("The rate was cut to 0 to 1/4 percent.", "2020-03-15");
        let p2 = passage("Markets were strained.", "2020-03-15");
        let cites = vec![
            Citation {
                n: 1,
                chunk_id: "a".into(),
                document: "d".into(),
                date: None,
                section: None,
                score: 1.0,
            },
            Citation {
                n: 2,
                chunk_id: "b".into(),
                document: "d".into(),
                date: None,
                section: None,
                score: 1.0,
            },
        ];
        let get = |id: &str| Some(if id == "a" { p1.clone() } else { p2.clone() });
        let pairs = citation_pairs("The rate was cut to 0 to 1/4 percent [1][2].", &cites, &get);
        assert_eq!(pairs.len(), 2);
        assert!(pairs[0].supported);
        assert!(!pairs[1].supported, "passage 2 does not state the figure");
    }
}
