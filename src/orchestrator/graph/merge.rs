//! Set-union merge of task results (ARCHITECTURE §8): each task contributes a claim set `C_i`
//! (claims keyed by a claim id) and the passages it cites (keyed by `chunk_id`); the merged state
//! is `U = U ∪ C_i`, once per task, so the order tasks finish in never changes the result.
//! Conflicts are claims about the same subject and date with different values.

use super::figures::{figures, FigureKind};
use crate::corpus::Date;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One thing a task's answer states, with the passage that states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// `subject|date|sentence`, hashed: the same statement from two tasks is one claim.
    pub id: String,
    pub task_id: String,
    /// What the figure is about (`target range`, `treasury securities`, …), or the task's label.
    pub subject: String,
    /// The stating passage's date.
    pub date: Option<Date>,
    /// The figures of the sentence as written, joined with `; ` (empty without figures).
    pub value: String,
    /// The sentence, without citation markers.
    pub sentence: String,
    pub chunk_id: String,
    pub document: String,
    pub section: Option<String>,
    /// The task's confidence in its answer (its retrieval relevance).
    pub confidence: f64,
    /// The claim's place in its task's answer (0 first).
    pub rank: usize,
}

/// A passage a claim rests on, as the answer cites it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CitedPassage {
    pub chunk_id: String,
    pub document: String,
    pub date: Option<Date>,
    pub section: Option<String>,
    pub score: f64,
}

/// What one task contributes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClaimSet {
    pub claims: BTreeMap<String, Claim>,
    pub passages: BTreeMap<String, CitedPassage>,
}

/// The union of every finished task's claim set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Merged {
    pub claims: BTreeMap<String, Claim>,
    pub passages: BTreeMap<String, CitedPassage>,
    /// Task ids merged so far (each exactly once).
    pub tasks: BTreeSet<String>,
}

impl Merged {
    /// `U = U ∪ C_i`. A claim id already present keeps the version with the higher confidence,
    /// then the smaller task id, so the union is the same in any order. Merging a task twice
    /// changes nothing.
    pub fn union(&mut self, task_id: &str, set: &ClaimSet) {
        if !self.tasks.insert(task_id.to_string()) {
            return;
        }
        for (id, c) in &set.claims {
            match self.claims.get(id) {
                Some(old) if !prefer(c, old) => {}
                _ => {
                    self.claims.insert(id.clone(), c.clone());
                }
            }
        }
        for (id, p) in &set.passages {
            match self.passages.get(id) {
                Some(old) if old.score >= p.score => {}
                _ => {
                    self.passages.insert(id.clone(), p.clone());
                }
            }
        }
    }
}

fn prefer(new: &Claim, old: &Claim) -> bool {
    new.confidence > old.confidence
        || (new.confidence == old.confidence && new.task_id < old.task_id)
}

/// Subjects a figure can be about, most specific first (lower case), as they appear before it.
const SUBJECTS: [&str; 12] = [
    "target range for the federal funds rate",
    "target range",
    "target for the federal funds rate",
    "federal funds rate",
    "discount rate",
    "primary credit rate",
    "interest on reserve balances",
    "interest rate paid on reserve balances",
    "agency mortgage-backed securities",
    "mortgage-backed securities",
    "treasury securities",
    "agency debt",
];

/// The subject of a sentence's figures: the last known subject phrase before its first figure
/// (normalised: the target range and the target for the funds rate are one subject), else
/// `fallback`.
pub fn subject_of(sentence: &str, fallback: &str) -> String {
    let lower = sentence.to_lowercase();
    let first_figure = figures(sentence)
        .first()
        .and_then(|f| lower.find(&f.text.to_lowercase()))
        .unwrap_or(lower.len());
    let head = &lower[..first_figure];
    let found = SUBJECTS
        .iter()
        .filter_map(|s| head.rfind(s).map(|at| (at, *s)))
        .max_by_key(|(at, s)| (*at + s.len(), s.len()));
    match found {
        Some((_, s)) if s.contains("federal funds") || s == "target range" => {
            "federal funds rate target".to_string()
        }
        Some((_, s)) if s.contains("mortgage-backed") => "agency mortgage-backed securities".into(),
        Some((_, s)) if s.contains("reserve balances") => "interest on reserve balances".into(),
        Some((_, s)) => s.to_string(),
        None => fallback.to_string(),
    }
}

/// The figures of a sentence, as a claim's value: the levels (percent and dollars) it states,
/// or its moves when it states no level.
pub fn value_of(sentence: &str) -> String {
    let figs = figures(sentence);
    let levels: Vec<&str> = figs
        .iter()
        .filter(|f| f.kind != FigureKind::BasisPoints)
        .map(|f| f.text.as_str())
        .collect();
    if levels.is_empty() {
        figs.iter()
            .map(|f| f.text.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    } else {
        levels.join("; ")
    }
}

/// A claim id: stable across runs and machines (FNV-1a of subject, date and sentence).
pub fn claim_id(subject: &str, date: Option<Date>, sentence: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    let date = date.map(|d| d.to_string()).unwrap_or_default();
    for part in [subject, "|", &date, "|", sentence] {
        for b in part.as_bytes() {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x100000001b3);
        }
    }
    format!("claim_{h:016x}")
}

/// Two claims disagree: same subject and date, both with values, different values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    pub subject: String,
    pub date: Option<Date>,
    /// The claim ids and their values.
    pub claims: Vec<(String, String)>,
    /// The claim kept by the resolution strategy.
    pub kept: String,
}

impl Conflict {
    /// The claims the resolution sets aside: those whose value differs from the kept claim's
    /// (a claim stating what the kept one states agrees with it).
    pub fn losers(&self) -> impl Iterator<Item = &str> {
        let kept = self
            .claims
            .iter()
            .find(|(id, _)| *id == self.kept)
            .map(|(_, v)| v.as_str());
        self.claims
            .iter()
            .filter(move |(id, v)| *id != self.kept && Some(v.as_str()) != kept)
            .map(|(id, _)| id.as_str())
    }
}

/// How a conflict is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ConflictResolution {
    /// The claim whose task was most confident.
    #[default]
    HighestConfidence,
    /// The claim from the most recently dated passage (ties: highest confidence).
    MostRecent,
    /// The value most claims state, weighted by confidence.
    WeightedVote,
}

/// The conflicts among `claims` and, for each, the claim `strategy` keeps.
pub fn resolve_conflicts(
    claims: &BTreeMap<String, Claim>,
    strategy: ConflictResolution,
) -> Vec<Conflict> {
    // A move's size and a level are not rival answers ("25 basis points" and "1/4 to 1/2
    // percent" can both be true of one meeting): claims disagree only within a kind of figure.
    type Key = (String, Option<Date>, Option<FigureKind>);
    let mut groups: BTreeMap<Key, Vec<&Claim>> = BTreeMap::new();
    for c in claims.values().filter(|c| !c.value.is_empty()) {
        let kind = figures(&c.value).first().map(|f| f.kind);
        groups
            .entry((c.subject.clone(), c.date, kind))
            .or_default()
            .push(c);
    }
    let mut out = Vec::new();
    for ((subject, date, _), cs) in groups {
        let values: BTreeSet<&str> = cs.iter().map(|c| c.value.as_str()).collect();
        // Two sources disagreeing, not one passage stating two figures (a decision and the
        // inflation objective in one statement are not a conflict).
        let passages: BTreeSet<&str> = cs.iter().map(|c| c.chunk_id.as_str()).collect();
        if values.len() < 2 || passages.len() < 2 {
            continue;
        }
        // Ties go to the sentence its task ranked first, then to the smaller id (determinism).
        let best = |a: &Claim, b: &Claim| {
            a.confidence
                .total_cmp(&b.confidence)
                .then_with(|| b.rank.cmp(&a.rank))
                .then_with(|| b.id.cmp(&a.id))
        };
        let kept = match strategy {
            ConflictResolution::HighestConfidence => {
                cs.iter().max_by(|a, b| best(a, b)).map(|c| c.id.clone())
            }
            ConflictResolution::MostRecent => cs
                .iter()
                .max_by(|a, b| a.date.cmp(&b.date).then_with(|| best(a, b)))
                .map(|c| c.id.clone()),
            ConflictResolution::WeightedVote => {
                let mut votes: BTreeMap<&str, f64> = BTreeMap::new();
                for c in &cs {
                    *votes.entry(c.value.as_str()).or_insert(0.0) += c.confidence.max(0.01);
                }
                let winner = votes
                    .iter()
                    .max_by(|a, b| a.1.total_cmp(b.1).then_with(|| b.0.cmp(a.0)))
                    .map(|(v, _)| *v);
                cs.iter()
                    .filter(|c| Some(c.value.as_str()) == winner)
                    .max_by(|a, b| best(a, b))
                    .map(|c| c.id.clone())
            }
        };
        out.push(Conflict {
            subject,
            date,
            claims: cs.iter().map(|c| (c.id.clone(), c.value.clone())).collect(),
            kept: kept.unwrap_or_default(),
        });
    }
    out
}

/// How consistent the claims are: 1 − (claims in conflict / claims with values); 1 without
/// any value.
pub fn consistency(claims: &BTreeMap<String, Claim>, conflicts: &[Conflict]) -> f64 {
    let with_values = claims.values().filter(|c| !c.value.is_empty()).count();
    if with_values == 0 {
        return 1.0;
    }
    let conflicting: usize = conflicts.iter().map(|c| c.claims.len()).sum();
    1.0 - conflicting as f64 / with_values as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn claim(task: &str, subject: &str, date: &str, value: &str, conf: f64) -> Claim {
        let sentence = format!("The {subject} was set to {value} (as {task} read it).");
        let date = Date::parse(date);
        Claim {
            id: claim_id(subject, date, &sentence),
            task_id: task.into(),
            subject: subject.into(),
            date,
            value: value.into(),
            sentence,
            chunk_id: format!("{task}-chunk"),
            document: "d.md".into(),
            section: None,
            confidence: conf,
            rank: 0,
        }
    }

    fn set(claims: Vec<Claim>) -> ClaimSet {
        let mut s = ClaimSet::default();
        for c in claims {
            s.passages.insert(
                c.chunk_id.clone(),
                CitedPassage {
                    chunk_id: c.chunk_id.clone(),
                    document: c.document.clone(),
                    date: c.date,
                    section: None,
                    score: c.confidence,
                },
            );
            s.claims.insert(c.id.clone(), c);
        }
        s
    }

    #[test]
    fn subjects_and_values_are_read_from_sentences() {
        let s = "The Committee decided to raise the target range for the federal funds rate to 1-1/2 to 1-3/4 percent.";
        assert_eq!(subject_of(s, "x"), "federal funds rate target");
        assert_eq!(value_of(s), "1-1/2 to 1-3/4 percent");
        let s =
            "reduce the monthly pace of purchases of Treasury securities to $35 billion per month";
        assert_eq!(subject_of(s, "x"), "treasury securities");
        assert_eq!(subject_of("No figure here.", "June 2004"), "June 2004");
        assert_eq!(
            value_of("lowered its target by 50 basis points"),
            "50 basis points"
        );
    }

    #[test]
    fn conflicting_values_for_one_meeting_are_found_and_resolved_by_strategy() {
        let mut u = Merged::default();
        u.union(
            "t1",
            &set(vec![claim(
                "t1",
                "target",
                "2018-03-21",
                "1-1/2 to 1-3/4 percent",
                0.9,
            )]),
        );
        u.union(
            "t2",
            &set(vec![claim(
                "t2",
                "target",
                "2018-03-21",
                "1-1/4 to 1-1/2 percent",
                0.6,
            )]),
        );
        u.union(
            "t3",
            &set(vec![claim(
                "t3",
                "target",
                "2018-03-21",
                "1-1/4 to 1-1/2 percent",
                0.5,
            )]),
        );
        u.union(
            "t4",
            &set(vec![claim(
                "t4",
                "target",
                "2018-06-13",
                "1-3/4 to 2 percent",
                0.8,
            )]),
        );
        let hc = resolve_conflicts(&u.claims, ConflictResolution::HighestConfidence);
        assert_eq!(hc.len(), 1, "June has one value: no conflict");
        assert_eq!(hc[0].claims.len(), 3);
        let kept = &u.claims[&hc[0].kept];
        assert_eq!(kept.value, "1-1/2 to 1-3/4 percent");
        let vote = resolve_conflicts(&u.claims, ConflictResolution::WeightedVote);
        assert_eq!(
            u.claims[&vote[0].kept].value, "1-1/4 to 1-1/2 percent",
            "0.6 + 0.5 > 0.9"
        );
        let recent = resolve_conflicts(&u.claims, ConflictResolution::MostRecent);
        assert_eq!(
            u.claims[&recent[0].kept].task_id, "t1",
            "same date: the most confident"
        );
        assert!((consistency(&u.claims, &hc) - 0.25).abs() < 1e-9);
    }

    #[test]
    fn two_figures_of_one_passage_are_not_a_conflict() {
        let mut decision = claim("t1", "target", "2018-06-13", "1-3/4 to 2 percent", 0.8);
        let mut objective = claim("t1", "target", "2018-06-13", "2 percent", 0.8);
        objective.sentence = "Inflation near the 2 percent objective.".into();
        objective.id = claim_id("target", objective.date, &objective.sentence);
        objective.rank = 1;
        let mut u = Merged::default();
        u.union("t1", &set(vec![decision.clone(), objective.clone()]));
        assert!(resolve_conflicts(&u.claims, ConflictResolution::HighestConfidence).is_empty());
        // From two passages they are, and the tie goes to the task's first-ranked sentence.
        decision.chunk_id = "a".into();
        objective.chunk_id = "b".into();
        let mut u = Merged::default();
        u.union("t1", &set(vec![objective, decision.clone()]));
        let c = resolve_conflicts(&u.claims, ConflictResolution::HighestConfidence);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].kept, decision.id);
    }

    #[test]
    fn a_size_and_a_level_are_not_in_conflict() {
        let mut level = claim("t1", "target", "2022-03-16", "1/4 to 1/2 percent", 0.8);
        level.chunk_id = "a".into();
        let mut size = claim("t1", "target", "2022-03-16", "25 basis points", 0.9);
        size.sentence = "Markets expected a 25 basis point increase.".into();
        size.id = claim_id("target", size.date, &size.sentence);
        size.chunk_id = "b".into();
        let mut u = Merged::default();
        u.union("t1", &set(vec![level, size]));
        assert!(resolve_conflicts(&u.claims, ConflictResolution::HighestConfidence).is_empty());
    }

    #[test]
    fn a_claim_agreeing_with_the_kept_one_does_not_lose() {
        let c = Conflict {
            subject: "federal funds rate target".into(),
            date: Date::parse("2022-03-16"),
            claims: vec![
                ("minutes".into(), "1/4 to 1/2 percent".into()),
                ("statement".into(), "1/4 to 1/2 percent".into()),
                ("market".into(), "25 basis points".into()),
            ],
            kept: "statement".into(),
        };
        assert_eq!(c.losers().collect::<Vec<_>>(), vec!["market"]);
    }

    #[test]
    fn merging_a_task_twice_changes_nothing() {
        let s = set(vec![claim("t1", "target", "2018-03-21", "1 percent", 0.9)]);
        let mut u = Merged::default();
        u.union("t1", &s);
        let once = u.clone();
        u.union("t1", &s);
        assert_eq!(u, once);
    }

    proptest! {
        /// Every completion order of the same task results gives the same union.
        #[test]
        fn the_union_is_the_same_in_every_completion_order(
            order in Just((0..6usize).collect::<Vec<_>>()).prop_shuffle()
        ) {
            let sets: Vec<(String, ClaimSet)> = (0..6)
                .map(|i| {
                    let t = format!("t{i}");
                    // Overlapping claims: tasks 0-2 all state the same March claim, with
                    // different confidences; tasks 3-5 state June values that conflict.
                    let c = if i < 3 {
                        let mut c = claim(&t, "target", "2018-03-21", "1 percent", 0.5 + 0.1 * i as f64);
                        c.id = claim_id("target", c.date, "same sentence");
                        c
                    } else {
                        claim(&t, "target", "2018-06-13", &format!("{i} percent"), 0.7)
                    };
                    (t, set(vec![c]))
                })
                .collect();
            let mut reference = Merged::default();
            for (t, s) in &sets {
                reference.union(t, s);
            }
            let mut u = Merged::default();
            for i in order {
                u.union(&sets[i].0, &sets[i].1);
            }
            prop_assert_eq!(&u, &reference);
            prop_assert_eq!(
                resolve_conflicts(&u.claims, ConflictResolution::WeightedVote),
                resolve_conflicts(&reference.claims, ConflictResolution::WeightedVote)
            );
        }
    }
}
