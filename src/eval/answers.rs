//! Answer quality: the whole pipeline on each question of a set, scored for
//!
//! - **correct**: rate items (`answer_value_lower/upper` or `change_bp`) by the numeric checker
//!   of [`super::answer_check`]; other items by their phrases — every `expect_all` phrase and,
//!   when given, at least one `expect_any` phrase appear in the answer, compared without regard
//!   to case, spacing, citation markers or the typographic form of quotes and dashes. Only an
//!   answer counts: a reply saying the documents do not answer is not correct, whatever it lists;
//! - **cited**: one of the item's `cites` files is among the answer's citations (for items
//!   without `cites`, off-topic questions, citing nothing is right);
//! - **citation precision**: supported sentence–citation pairs over all pairs, where a pair is a
//!   sentence of the answer and one `[n]` on it, and "supported" is
//!   [`crate::orchestrator::stages::validate::support`]'s definition (the sentence's figures,
//!   dates and names appear in passage n as its citation shows it, with half its content words);
//! - **clean text**: the answer has none of [`crate::orchestrator::text::text_problems`];
//!
//! with breakdowns by `kind` and `source`, end-to-end latency and the final reasons.

use super::metrics::{median, percentile};
use super::qa::{is_cited, QaItem};
use super::support::citation_pairs;
use crate::orchestrator::band::FinalReason;
use crate::orchestrator::citations::without_markers;
use crate::orchestrator::text::text_problems;
use crate::orchestrator::types::OrchestrationResult;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// Scores of one slice of the items (one kind, one source).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Breakdown {
    pub items: usize,
    /// Items with something checkable (a value, a move or phrases).
    pub checkable: usize,
    pub correct: usize,
    pub cited: usize,
}

impl Breakdown {
    fn add(&mut self, ok: Option<bool>, cited: bool) {
        self.items += 1;
        if let Some(ok) = ok {
            self.checkable += 1;
            self.correct += usize::from(ok);
        }
        self.cited += usize::from(cited);
    }

    /// Share correct of the checkable items.
    pub fn correct_rate(&self) -> Option<f64> {
        (self.checkable > 0).then(|| self.correct as f64 / self.checkable as f64)
    }

    pub fn cited_rate(&self) -> f64 {
        self.cited as f64 / self.items.max(1) as f64
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct QaAnswerScores {
    pub items: usize,
    /// Share of items whose cited file is among the answer's citations.
    pub cited: f64,
    /// Share of checkable items answered correctly (`None` when nothing is checkable).
    pub correct: Option<f64>,
    pub checkable: usize,
    /// Supported sentence–citation pairs / all pairs (`None` when no answer cites anything).
    pub citation_precision: Option<f64>,
    pub citation_pairs: usize,
    /// The pairs that were not supported: `id [n]: sentence`.
    pub unsupported: Vec<String>,
    /// Answers whose only remaining citation validation kept although unsupported.
    pub kept_unsupported: usize,
    /// Share of answers whose text has no prose problem (quotes, markup, cut or repeated
    /// sentences).
    pub clean_text: f64,
    pub text_problems: Vec<String>,
    pub median_ms: f64,
    pub p95_ms: f64,
    /// How many items ended with each final reason.
    pub final_reasons: BTreeMap<String, usize>,
    /// Quantiles (p10, p50, p90) of the evaluate stage's mean relevance and of the confidence.
    pub relevance_quantiles: [f64; 3],
    pub confidence_quantiles: [f64; 3],
    pub by_kind: BTreeMap<String, Breakdown>,
    pub by_source: BTreeMap<String, Breakdown>,
    /// Items answered wrongly or without the cited file: `id: what was wrong`.
    pub failures: Vec<String>,
}

/// Lower case, one space between words, no citation markers, straight quotes and hyphens.
pub fn normalise(text: &str) -> String {
    without_markers(text)
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{201C}' | '\u{201D}' => '"',
            '\u{2013}' | '\u{2014}' | '\u{2011}' => '-',
            c => c,
        })
        .collect::<String>()
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `answer` contains every `all` phrase and, when `any` is not empty, one of them.
pub fn states_phrases(answer: &str, all: &[String], any: &[String]) -> bool {
    let a = normalise(answer);
    all.iter().all(|p| a.contains(&normalise(p)))
        && (any.is_empty() || any.iter().any(|p| a.contains(&normalise(p))))
}

/// Whether an answer states what the item expects; `None` when the item expects nothing
/// checkable.
pub fn answer_is_correct(item: &QaItem, answer: &str) -> Option<bool> {
    if let Some(bp) = item.change_bp {
        return Some(super::answer_check::first_action(answer) == Some(bp));
    }
    if let (Some(lo), Some(hi)) = (item.answer_value_lower, item.answer_value_upper) {
        return Some(super::answer_check::states_value(answer, lo, hi));
    }
    if item.expect_all.is_empty() && item.expect_any.is_empty() {
        return None;
    }
    Some(states_phrases(answer, &item.expect_all, &item.expect_any))
}

/// Whether the result is an answer (a band of confidence), not a direct reply, a refusal or a
/// statement that the documents do not answer.
pub fn is_answer(result: &OrchestrationResult) -> bool {
    matches!(
        result.final_reason,
        FinalReason::ConfidenceHigh
            | FinalReason::ConfidenceMediumCaveated
            | FinalReason::ConfidenceLowPartial
            | FinalReason::ConfidenceTooLowClarify
    )
}

/// Runs the whole pipeline on every item and scores the answers. With `candidates`, writes one
/// JSON line per item there: its id, question, kind, source, what synthesize read it as asking,
/// what scored the sentences, and every candidate sentence with its features (what
/// `scripts/train_ranker.py` learns from).
pub async fn evaluate_answers(
    engine: &crate::orchestrator::api::Engine,
    items: &[QaItem],
    mut candidates: Option<&mut dyn std::io::Write>,
) -> Result<QaAnswerScores, super::EvalError> {
    let retriever = engine.driver().retriever().clone();
    let passage = move |id: &str| retriever.passage(id);
    let mut all = Breakdown::default();
    let mut by_kind: BTreeMap<String, Breakdown> = BTreeMap::new();
    let mut by_source: BTreeMap<String, Breakdown> = BTreeMap::new();
    let mut times = Vec::with_capacity(items.len());
    let mut failures = Vec::new();
    let mut reasons = BTreeMap::new();
    let (mut relevances, mut confidences) = (Vec::new(), Vec::new());
    let (mut pairs, mut supported, mut kept) = (0usize, 0usize, 0usize);
    let mut unsupported = Vec::new();
    let (mut answered, mut clean) = (0usize, 0usize);
    let mut problems = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let (result, ms) = super::ask_recording(
            engine,
            &item.question,
            format!("eval{i}"),
            candidates.is_some(),
        )
        .await;
        times.push(ms);
        if let Some(w) = candidates.as_mut() {
            let synthesize = result.cached_state.get("synthesize");
            let line = serde_json::json!({
                "id": item.id,
                "question": item.question,
                "kind": item.kind,
                "source": item.source,
                "asks": synthesize.map(|s| s["asks"].clone()),
                "scored_by": synthesize.map(|s| s["scored_by"].clone()),
                "candidates": synthesize.map(|s| s["candidates"].clone()),
            });
            writeln!(w, "{line}")
                .map_err(|e| super::EvalError::Input(format!("cannot write candidates: {e}")))?;
        }
        let id = if item.id.is_empty() {
            item.question.clone()
        } else {
            item.id.clone()
        };
        *reasons
            .entry(result.final_reason.as_str().to_string())
            .or_insert(0) += 1;
        if let Some(r) = result
            .cached_state
            .get("evaluate")
            .and_then(|e| e["mean_relevance"].as_f64())
        {
            relevances.push(r);
        }
        if let Some(c) = result.confidence {
            confidences.push(c);
        }
        // Items without cited files are questions the documents do not answer: citing nothing is right.
        let has_cite = if item.cites.is_empty() {
            result.citations.is_empty()
        } else {
            result
                .citations
                .iter()
                .any(|c| is_cited(&c.document, &item.cites))
        };
        let ok = if is_answer(&result) {
            answer_is_correct(item, &result.answer)
        } else {
            answer_is_correct(item, "").map(|_| false)
        };
        all.add(ok, has_cite);
        let kind = item.kind.clone().unwrap_or_else(|| "unlabelled".into());
        by_kind.entry(kind).or_default().add(ok, has_cite);
        let source = item.source.clone().unwrap_or_else(|| "unlabelled".into());
        by_source.entry(source).or_default().add(ok, has_cite);
        for p in citation_pairs(&result.answer, &result.citations, &passage) {
            pairs += 1;
            supported += usize::from(p.supported);
            if !p.supported {
                unsupported.push(format!("{id} [{}]: {}", p.n, p.sentence));
            }
        }
        if result
            .cached_state
            .get("validate")
            .is_some_and(|v| !v["kept_unsupported"].is_null())
        {
            kept += 1;
        }
        if is_answer(&result) {
            answered += 1;
            let p = text_problems(&result.answer);
            if p.is_empty() {
                clean += 1;
            }
            problems.extend(p.into_iter().map(|p| format!("{id}: {p}")));
        }
        if !has_cite || ok == Some(false) {
            let first = result
                .answer
                .replace('\n', " ")
                .chars()
                .take(200)
                .collect::<String>();
            failures.push(format!(
                "{id}: cited={has_cite} correct={ok:?} [{}] answer: {first}",
                result.final_reason.as_str()
            ));
        }
    }
    let q = |v: &[f64]| [percentile(v, 0.1), median(v), percentile(v, 0.9)];
    Ok(QaAnswerScores {
        items: items.len(),
        cited: all.cited_rate(),
        correct: all.correct_rate(),
        checkable: all.checkable,
        citation_precision: (pairs > 0).then(|| supported as f64 / pairs as f64),
        citation_pairs: pairs,
        unsupported,
        kept_unsupported: kept,
        clean_text: if answered == 0 {
            1.0
        } else {
            clean as f64 / answered as f64
        },
        text_problems: problems,
        median_ms: median(&times),
        p95_ms: percentile(&times, 0.95),
        final_reasons: reasons,
        relevance_quantiles: q(&relevances),
        confidence_quantiles: q(&confidences),
        by_kind,
        by_source,
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(json: &str) -> QaItem {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn phrases_ignore_case_spacing_markers_and_typography() {
        let all = vec!["Extended  Period".to_string(), "Fisher".to_string()];
        assert!(states_phrases(
            "Fisher [1] wanted the \u{201C}extended\nperiod\u{201D} [2] language.",
            &all,
            &[]
        ));
        assert!(!states_phrases("Plosser wanted it.", &all, &[]));
        let any = vec!["raise".to_string(), "increase".to_string()];
        assert!(states_phrases(
            "Fisher: extended period; an increase.",
            &all,
            &any
        ));
        assert!(!states_phrases(
            "Fisher: extended period; a cut.",
            &all,
            &any
        ));
        assert!(states_phrases(
            "It \u{2014} the \u{2018}patient\u{2019} one.",
            &["it - the 'patient' one".to_string()],
            &[]
        ));
    }

    #[test]
    fn rate_items_use_the_numeric_checker_and_others_their_phrases() {
        let rate = item(
            r#"{"question":"q","cites":[],"kind":"rate","change_bp":-25,"expect_all":[],"expect_any":[]}"#,
        );
        assert_eq!(
            answer_is_correct(&rate, "The Committee decided to lower its target for the federal funds rate by 25 basis points."),
            Some(true)
        );
        assert_eq!(
            answer_is_correct(
                &rate,
                "It raised the federal funds rate by 25 basis points."
            ),
            Some(false)
        );
        let vote = item(
            r#"{"question":"q","cites":[],"kind":"vote","expect_all":["Lacker","raise"],"expect_any":[]}"#,
        );
        assert_eq!(
            answer_is_correct(
                &vote,
                "Voting against was Jeffrey M. Lacker, who preferred to raise the range [1]."
            ),
            Some(true)
        );
        assert_eq!(
            answer_is_correct(&vote, "Voting against was Jeffrey M. Lacker [1]."),
            Some(false)
        );
        let none = item(r#"{"question":"q","cites":[]}"#);
        assert_eq!(answer_is_correct(&none, "anything"), None);
    }

    #[test]
    fn breakdowns_count_checkable_correct_and_cited() {
        let mut b = Breakdown::default();
        b.add(Some(true), true);
        b.add(Some(false), true);
        b.add(None, false);
        assert_eq!((b.items, b.checkable, b.correct, b.cited), (3, 2, 1, 2));
        assert_eq!(b.correct_rate(), Some(0.5));
        assert!((b.cited_rate() - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(Breakdown::default().correct_rate(), None);
    }
}
