//! Questions that need several documents (`eval/multidoc-*.jsonl`, described in
//! `eval/MULTIDOC.md`): does the answer cite every side or meeting asked for, does it state the
//! figures asked for, do its citations hold, how long did it take.

use super::metrics::{median, percentile};
use super::qa::is_cited;
use super::support::citation_pairs;
use super::EvalError;
use crate::orchestrator::api::{Engine, IntentType, OrchestrationResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Side {
    pub label: String,
    pub cites: Vec<String>,
    #[serde(default)]
    pub figures: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct MultidocItem {
    pub id: String,
    pub intent: IntentType,
    pub question: String,
    pub sides: Vec<Side>,
    #[serde(default)]
    pub expect_all: Vec<String>,
}

pub fn load(path: &Path) -> Result<Vec<MultidocItem>, EvalError> {
    super::read_jsonl(path)
}

/// Lower case, one space between words, dashes unified: how phrases are matched.
pub fn normalise(s: &str) -> String {
    s.to_lowercase()
        .replace(['\u{2013}', '\u{2014}', '\u{2011}'], "-")
        .replace(['\u{2019}', '\u{2018}'], "'")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// How one question fared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemScore {
    pub id: String,
    pub intent: IntentType,
    pub planned_intent: Option<IntentType>,
    /// Sides with at least one cited file among the answer's citations.
    pub sides_cited: usize,
    pub sides: usize,
    /// Expected figures and phrases found in the answer.
    pub figures_stated: usize,
    pub figures: usize,
    pub supported_pairs: usize,
    pub pairs: usize,
    pub tasks: usize,
    pub ms: f64,
    pub missing: Vec<String>,
}

impl ItemScore {
    pub fn cites_every_side(&self) -> bool {
        self.sides_cited == self.sides
    }

    pub fn states_every_figure(&self) -> bool {
        self.figures_stated == self.figures
    }
}

/// Scores one answer against its item.
pub fn score_item(
    item: &MultidocItem,
    r: &OrchestrationResult,
    passage: &dyn Fn(&str) -> Option<crate::index::Passage>,
    ms: f64,
) -> ItemScore {
    let answer = normalise(&r.answer);
    let mut missing = Vec::new();
    let mut sides_cited = 0;
    let mut figures_stated = 0;
    let mut figures = 0;
    for side in &item.sides {
        if r.citations
            .iter()
            .any(|c| is_cited(&c.document, &side.cites))
        {
            sides_cited += 1;
        } else {
            missing.push(format!("side {} not cited", side.label));
        }
        for f in &side.figures {
            figures += 1;
            if answer.contains(&normalise(f)) {
                figures_stated += 1;
            } else {
                missing.push(format!("{}: {f:?} not stated", side.label));
            }
        }
    }
    for p in &item.expect_all {
        figures += 1;
        if answer.contains(&normalise(p)) {
            figures_stated += 1;
        } else {
            missing.push(format!("{p:?} not stated"));
        }
    }
    let pairs = citation_pairs(&r.answer, &r.citations, passage);
    ItemScore {
        id: item.id.clone(),
        intent: item.intent,
        planned_intent: r.plan.as_ref().map(|p| p.intent),
        sides_cited,
        sides: item.sides.len(),
        figures_stated,
        figures,
        supported_pairs: pairs.iter().filter(|p| p.supported).count(),
        pairs: pairs.len(),
        tasks: r.task_graph.as_ref().map(|g| g.tasks.len()).unwrap_or(0),
        ms,
        missing,
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct MultidocScores {
    pub items: usize,
    /// Share of answers citing every side or meeting asked for.
    pub cite_every_side: f64,
    /// Share of answers stating every expected figure.
    pub state_every_figure: f64,
    /// Supported sentence–citation pairs / all pairs, over every answer.
    pub citation_precision: f64,
    /// Share of questions whose planned intent is the set's.
    pub intent_agreement: f64,
    pub median_ms: f64,
    pub p95_ms: f64,
    /// Per intent: (items, cite every side, state every figure).
    pub by_intent: BTreeMap<String, (usize, f64, f64)>,
    pub details: Vec<ItemScore>,
}

/// Runs every item through the engine and scores the answers.
pub async fn evaluate(engine: &Engine, items: &[MultidocItem]) -> MultidocScores {
    let retriever = std::sync::Arc::clone(engine.driver().retriever());
    let passage = move |id: &str| retriever.passage(id);
    let mut details = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let (result, ms) = super::ask_timed(engine, &item.question, format!("multidoc{i}")).await;
        details.push(score_item(item, &result, &passage, ms));
    }
    summarise(details)
}

pub fn summarise(details: Vec<ItemScore>) -> MultidocScores {
    let n = details.len().max(1) as f64;
    let share = |f: &dyn Fn(&ItemScore) -> bool, ds: &[&ItemScore]| {
        ds.iter().filter(|d| f(d)).count() as f64 / ds.len().max(1) as f64
    };
    let all: Vec<&ItemScore> = details.iter().collect();
    let pairs: usize = details.iter().map(|d| d.pairs).sum();
    let supported: usize = details.iter().map(|d| d.supported_pairs).sum();
    let times: Vec<f64> = details.iter().map(|d| d.ms).collect();
    let mut by_intent: BTreeMap<String, (usize, f64, f64)> = BTreeMap::new();
    let intents: std::collections::BTreeSet<IntentType> =
        details.iter().map(|d| d.intent).collect();
    for intent in intents {
        let ds: Vec<&ItemScore> = details.iter().filter(|d| d.intent == intent).collect();
        by_intent.insert(
            intent.as_str().to_string(),
            (
                ds.len(),
                share(&|d| d.cites_every_side(), &ds),
                share(&|d| d.states_every_figure(), &ds),
            ),
        );
    }
    MultidocScores {
        items: details.len(),
        cite_every_side: share(&|d| d.cites_every_side(), &all),
        state_every_figure: share(&|d| d.states_every_figure(), &all),
        citation_precision: if pairs == 0 {
            1.0
        } else {
            supported as f64 / pairs as f64
        },
        intent_agreement: details
            .iter()
            .filter(|d| d.planned_intent == Some(d.intent))
            .count() as f64
            / n,
        median_ms: median(&times),
        p95_ms: percentile(&times, 0.95),
        by_intent,
        details,
    }
}
