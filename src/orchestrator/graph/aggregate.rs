//! Aggregation (ARCHITECTURE §8): the answer of a decomposed question, shaped by its intent —
//! a dated timeline with one cited line per meeting for a trend, one cited part per side plus
//! the difference for a comparison, one cited answer per part, a tally for an aggregate — and
//! the `AgentResultAggregation` record of how it was made. Each citation is the passage that
//! states its line.

use super::coordinator::{CoordinatorReport, TaskStatus};
use super::figures::{figures, write_number, FigureKind};
use super::merge::{consistency, resolve_conflicts, Claim, Conflict, ConflictResolution};
use super::routing::IntentType;
use super::task::TaskGraph;
use crate::orchestrator::band::round2;
use crate::orchestrator::citations::with_markers;
use crate::orchestrator::types::Citation;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// One part's contribution, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartResult {
    pub task_id: String,
    pub label: String,
    pub status: TaskStatus,
    pub confidence: Option<f64>,
    /// The lines of the answer this part gave.
    pub lines: Vec<String>,
}

/// How a decomposed question was answered (ARCHITECTURE §8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentResultAggregation {
    pub agents_executed: Vec<String>,
    pub execution_order: Vec<Vec<String>>,
    pub combined_results: Vec<PartResult>,
    /// The lowest confidence of the parts that answered.
    pub overall_confidence: f64,
    pub synthesis: String,
    pub key_insights: Vec<String>,
    pub conflicts_detected: Vec<Conflict>,
    pub consistency_score: f64,
    pub total_execution_time_ms: f64,
    pub total_tokens_used: u64,
}

/// The aggregated answer: its text, its citations, and each line with the citation it carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregated {
    pub text: String,
    pub citations: Vec<Citation>,
    /// `(line as shown, line as read with its source's date, citation numbers)`.
    pub lines: Vec<(String, String, Vec<usize>)>,
    pub record: AgentResultAggregation,
}

/// Lines a part contributes at most.
fn lines_per_part(intent: IntentType) -> usize {
    match intent {
        IntentType::Trend => 1,
        IntentType::Aggregate => 2,
        _ => 2,
    }
}

/// Whether the question asks only for the meetings where something changed.
fn changes_only(question: &str) -> bool {
    let q = question.to_lowercase();
    [
        "unchanged need not",
        "skip meetings",
        "no change",
        "need not be listed",
        "which meetings",
        "at which meetings",
        "each meeting that",
        "every meeting that",
        "each meeting or conference call at which",
    ]
    .iter()
    .any(|p| q.contains(p))
}

/// The first figure of `kind` in a claim's value.
fn level(claim: &Claim, kind: FigureKind) -> Option<(f64, f64, String)> {
    figures(&claim.sentence)
        .into_iter()
        .find(|f| f.kind == kind)
        .map(|f| (f.lower, f.upper, f.text))
}

/// Builds the answer of a decomposed question from the coordinator's report.
pub fn aggregate(
    question: &str,
    intent: IntentType,
    graph: &TaskGraph,
    report: &CoordinatorReport,
    strategy: ConflictResolution,
    agents: Vec<String>,
) -> Aggregated {
    let conflicts = resolve_conflicts(&report.merged.claims, strategy);
    let losers: BTreeSet<&str> = conflicts.iter().flat_map(Conflict::losers).collect();
    // Parts in graph order, except dated sweeps and sides, which go in date order.
    let mut tasks: Vec<&super::task::Task> = graph.tasks.iter().collect();
    if matches!(
        intent,
        IntentType::Trend | IntentType::Aggregate | IntentType::Comparative
    ) {
        tasks.sort_by_key(|t| t.criteria.dates.map(|d| d.date_start));
    }
    let mut citations: Vec<Citation> = Vec::new();
    let mut cite = |c: &Claim| -> usize {
        if let Some(existing) = citations.iter().find(|x| x.chunk_id == c.chunk_id) {
            return existing.n;
        }
        let n = citations.len() + 1;
        let score = report
            .merged
            .passages
            .get(&c.chunk_id)
            .map(|p| p.score)
            .unwrap_or(c.confidence);
        citations.push(Citation {
            n,
            chunk_id: c.chunk_id.clone(),
            document: c.document.clone(),
            date: c.date,
            section: c.section.clone(),
            score: round2(score),
        });
        n
    };
    let mut lines: Vec<(String, String, Vec<usize>)> = Vec::new();
    let mut parts: Vec<PartResult> = Vec::new();
    let mut previous: Option<(f64, f64)> = None;
    let mut series: Vec<(String, (f64, f64), String)> = Vec::new();
    let only_changes = intent == IntentType::Trend && changes_only(question);
    // A sentence that answers two parts is shown once: the later part points back to it.
    let mut shown_bodies: Vec<(String, usize, String)> = Vec::new(); // (sentence, part, label)
    for (k, t) in tasks.iter().enumerate() {
        let status = report
            .status
            .get(&t.id)
            .copied()
            .unwrap_or(TaskStatus::Skipped);
        let label = if t.criteria.label.is_empty() {
            t.question.clone()
        } else {
            t.criteria.label.clone()
        };
        let mut claims: Vec<&Claim> = report
            .merged
            .claims
            .values()
            // A claim two tasks found is kept once in the union, under one of them; the other
            // task found it too, and its part is answered by it as well.
            .filter(|c| {
                let found = c.task_id == t.id
                    || report
                        .outputs
                        .get(&t.id)
                        .is_some_and(|o| o.claims.claims.contains_key(&c.id));
                found && !losers.contains(c.id.as_str())
            })
            .collect();
        claims.sort_by_key(|c| (c.rank, c.id.clone()));
        let mut part_lines = Vec::new();
        // The first part that already showed a sentence this part would show.
        let mut repeat: Option<(usize, String)> = None;
        for c in claims.into_iter().take(lines_per_part(intent)) {
            let key = c.sentence.split_whitespace().collect::<Vec<_>>().join(" ");
            if let Some((_, part, first)) = shown_bodies.iter().find(|(b, _, _)| *b == key) {
                repeat.get_or_insert_with(|| (*part, first.clone()));
                continue;
            }
            if intent == IntentType::Trend {
                let now = level(c, FigureKind::Percent).map(|(a, b, _)| (a, b));
                if let Some(v) = now {
                    series.push((label.clone(), v, c.value.clone()));
                }
                if only_changes && now.is_some() && now == previous {
                    previous = now;
                    continue;
                }
                if now.is_some() {
                    previous = now;
                }
            }
            let n = cite(c);
            let body = c.sentence.trim();
            let shown = match intent {
                IntentType::MultiPart => format!("{}. {}", k + 1, with_markers(body, &[n])),
                _ => format!("- {label}: {}", with_markers(body, &[n])),
            };
            let date = c
                .date
                .map(|d| format!("{}. ", d.long_form()))
                .unwrap_or_default();
            part_lines.push(shown.clone());
            shown_bodies.push((key, k + 1, label.clone()));
            lines.push((shown, format!("{date}{body}"), vec![n]));
        }
        // A pointer back states nothing of its own, so it carries no citation: the sentence
        // it points to carries it.
        if let (true, Some((part, first))) = (part_lines.is_empty(), &repeat) {
            let shown = match intent {
                IntentType::MultiPart => format!("{}. Answered by part {part} above.", k + 1),
                _ => format!("- {label}: as for {first} above."),
            };
            lines.push((shown.clone(), shown.clone(), vec![]));
            part_lines.push(shown);
        }
        if part_lines.is_empty() && status != TaskStatus::Done {
            let why = match status {
                TaskStatus::TimedOut => "timed out",
                TaskStatus::Failed => "failed",
                _ => "was not run",
            };
            let shown = format!("- {label}: not answered (the search {why}).");
            lines.push((shown.clone(), shown.clone(), vec![]));
            part_lines.push(shown);
        }
        parts.push(PartResult {
            task_id: t.id.clone(),
            label,
            status,
            confidence: report.outputs.get(&t.id).map(|o| round2(o.confidence)),
            lines: part_lines,
        });
    }
    let mut insights = Vec::new();
    match intent {
        IntentType::Trend if series.len() >= 2 => {
            let changes = series.windows(2).filter(|w| w[0].1 != w[1].1).count();
            let (first, last) = (&series[0], &series[series.len() - 1]);
            insights.push(format!(
                "From {} to {}, the stated level went from {} to {} ({changes} change{}).",
                first.0,
                last.0,
                first.2,
                last.2,
                if changes == 1 { "" } else { "s" }
            ));
        }
        IntentType::Comparative => {
            let levels: Vec<(String, f64, f64)> = parts
                .iter()
                .filter_map(|p| {
                    let c = report
                        .merged
                        .claims
                        .values()
                        .filter(|c| c.task_id == p.task_id && !losers.contains(c.id.as_str()))
                        .min_by_key(|c| (c.rank, c.id.clone()))?;
                    let (a, b, _) = level(c, FigureKind::Percent)?;
                    Some((p.label.clone(), a, b))
                })
                .collect();
            if levels.len() == 2 {
                let (la, a1, a2) = &levels[0];
                let (lb, b1, b2) = &levels[1];
                let diff = (b2 - a2).abs();
                let direction = if b2 > a2 { "higher" } else { "lower" };
                if diff > 1e-9 {
                    insights.push(format!(
                        "Difference: the level stated for {lb} ({}) is {} percentage point{} {direction} than for {la} ({}).",
                        range_text(*b1, *b2),
                        write_number(diff),
                        if (diff - 1.0).abs() < 1e-9 { "" } else { "s" },
                        range_text(*a1, *a2),
                    ));
                } else {
                    insights.push(format!(
                        "Difference: the level stated is the same for {la} and {lb} ({}).",
                        range_text(*a1, *a2)
                    ));
                }
            }
        }
        IntentType::Aggregate => {
            let answered = parts
                .iter()
                .filter(|p| !p.lines.is_empty() && p.status == TaskStatus::Done)
                .count();
            insights.push(format!(
                "{answered} of the {} meetings searched had a passage on this.",
                parts.len()
            ));
        }
        _ => {}
    }
    let head = match intent {
        IntentType::Trend => "Meeting by meeting:",
        IntentType::Comparative => "Side by side:",
        IntentType::MultiPart => "Part by part:",
        IntentType::Aggregate => "Across the period:",
        _ => "",
    };
    let mut text = String::from(head);
    for (shown, _, _) in &lines {
        text.push('\n');
        text.push_str(shown);
    }
    for i in &insights {
        text.push_str("\n\n");
        text.push_str(i);
    }
    let text = text.trim_start().to_string();
    let confidences: Vec<f64> = parts.iter().filter_map(|p| p.confidence).collect();
    let overall = confidences.iter().copied().fold(f64::NAN, f64::min);
    let record = AgentResultAggregation {
        agents_executed: agents,
        execution_order: report.execution_order.clone(),
        combined_results: parts,
        overall_confidence: if overall.is_nan() {
            0.0
        } else {
            round2(overall)
        },
        synthesis: text.clone(),
        key_insights: insights,
        consistency_score: round2(consistency(&report.merged.claims, &conflicts)),
        conflicts_detected: conflicts,
        total_execution_time_ms: round2(report.ms),
        total_tokens_used: report.total_tokens,
    };
    Aggregated {
        text,
        citations,
        lines,
        record,
    }
}

fn range_text(a: f64, b: f64) -> String {
    if (a - b).abs() < 1e-9 {
        format!("{} percent", write_number(a))
    } else {
        format!("{} to {} percent", write_number(a), write_number(b))
    }
}
