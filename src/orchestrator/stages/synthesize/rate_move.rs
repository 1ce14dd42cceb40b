//! The size of a policy-rate move that the decision sentence leaves out. Since 2008 a statement
//! says where the target went ("decided to raise the target range for the federal funds rate to
//! 1 to 1-1/4 percent"), not by how much; the size is the difference from the target the
//! previous meeting left, which the collection also holds. The answer then opens with the move
//! and its size, worked out from the two sentences it cites (the decision, and the previous
//! meeting's target, shown with its date), so the reader can check the arithmetic.

use super::cues::tells_of_dissent;
use crate::corpus::Date;
use crate::index::retriever::TopHits;
use crate::index::{Hit, Retriever, Timings};
use crate::orchestrator::text::{clean_sentence, sentences};
use crate::percent::percent_values;
use crate::query::MetadataHints;

/// Earlier dates tried for the previous target (a date whose documents state none is skipped).
const LOOKBACK: usize = 3;
/// Passages of the previous date read for its target.
const PASSAGES: usize = 8;

/// Which way the target moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Up,
    Down,
}

/// A target as a range (`lo` < `hi`) or a single rate (`lo` == `hi`), in percent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    pub lo: f64,
    pub hi: f64,
}

impl Level {
    fn is_range(self) -> bool {
        self.hi > self.lo
    }

    /// As statements write it: `1 to 1-1/4 percent`, `6-1/2 percent`.
    pub fn written(self) -> String {
        if self.is_range() {
            format!("{} to {} percent", written(self.lo), written(self.hi))
        } else {
            format!("{} percent", written(self.hi))
        }
    }
}

/// A number of percent in the statements' fractions (`1-1/4`, `3/4`, `5`); other values in
/// decimals.
fn written(v: f64) -> String {
    let eighths = (v * 8.0).round();
    if (eighths / 8.0 - v).abs() > 1e-9 {
        return format!("{v}");
    }
    let (whole, rest) = ((eighths / 8.0).floor() as i64, eighths as i64 % 8);
    let frac = match rest {
        0 => return whole.to_string(),
        2 => "1/4",
        4 => "1/2",
        6 => "3/4",
        1 => "1/8",
        3 => "3/8",
        5 => "5/8",
        _ => "7/8",
    };
    if whole == 0 {
        frac.to_string()
    } else {
        format!("{whole}-{frac}")
    }
}

/// A move worked out from two meetings' targets.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    /// The answer's opening sentence: the move, its size, and both targets.
    pub sentence: String,
    /// The previous meeting's passage and its sentence that states the target.
    pub previous_hit: Hit,
    pub previous_sentence: String,
    pub previous_date: Date,
}

/// What a sentence says the Committee did with the target, when it does not say it in so many
/// words: a move without its size, or the target in force with no verb of deciding it ("the
/// current 0 to 1/4 percent target range … will be appropriate", "the target rate of 5-1/4
/// percent"). `None` when the sentence gives the size, says "maintain" or "keep", or is not
/// about the target.
pub fn unstated_action(sentence: &str) -> Option<(Action, Level)> {
    let s = sentence.to_lowercase();
    if states_size(&s) || tells_of_dissent(&s) {
        return None;
    }
    let at = target_at(&s)?;
    let verb = |words: &[&str]| words.iter().filter_map(|w| s.find(w)).min();
    if verb(&["maintain", "keep", "leave", "left", "unchanged"]).is_some() {
        return None;
    }
    let up = verb(&["raise", "increase"]);
    let down = verb(&["lower", "reduce", "decrease", " cut "]);
    // "establish a target range … of 0 to 1/4 percent" moves it too; the direction then
    // follows from the two targets.
    let set = verb(&["establish", "set the target", "set a target"]);
    let decided = ["decided", "voted", "today"].iter().any(|w| s.contains(w));
    let (action, from) = match (up, down, set) {
        _ if !decided && (up.is_some() || down.is_some() || set.is_some()) => return None,
        (Some(u), None, _) => (Action::Move(Some(Direction::Up)), u),
        (None, Some(d), _) => (Action::Move(Some(Direction::Down)), d),
        (None, None, Some(e)) => (Action::Move(None), e),
        (None, None, None) if s.contains("current") || s.contains("target rate of") => {
            (Action::Hold, at)
        }
        _ => return None,
    };
    Some((action, level_after(&s, from.min(at))?))
}

/// What a sentence says the Committee did with the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Moved it; the direction when a verb gives it.
    Move(Option<Direction>),
    /// Kept it where it was.
    Hold,
}

/// Where a sentence names the policy-rate target.
fn target_at(s: &str) -> Option<usize> {
    ["federal funds rate", "target range", "target rate"]
        .iter()
        .filter_map(|m| s.find(m))
        .min()
}

/// Whether a (lower-case) sentence gives a size in points: "50 basis points", "1/2 percentage
/// point", "3/4 of a percentage point" (not "a half percentage point above the goal").
fn states_size(s: &str) -> bool {
    let words: Vec<&str> = s.split_whitespace().collect();
    words.iter().enumerate().any(|(i, w)| {
        (w.starts_with("basis") || w.starts_with("percentage"))
            && words[..i]
                .iter()
                .rev()
                .find(|p| !matches!(**p, "of" | "a"))
                .is_some_and(|p| p.chars().next().is_some_and(|c| c.is_ascii_digit()))
    })
}

/// The first target figure from byte `from` on, else the last one before it ("the current
/// 0 to 1/4 percent target range"). The size of a move is not a target: "by 1/2 percentage
/// point, to 1 to 1-1/4 percent".
fn level_after(s: &str, from: usize) -> Option<Level> {
    let s = s.replace("percentage point", "points");
    let from = from.min(s.len());
    let (lo, hi) = match percent_values(s.get(from..)?).first() {
        Some(v) => *v,
        None => *percent_values(s.get(..from)?).last()?,
    };
    Some(Level { lo, hi })
}

/// The target a sentence states the Committee set or kept (`maintain … at 3/4 to 1 percent`),
/// or `None` for any other sentence.
pub fn stated_target(sentence: &str) -> Option<Level> {
    let s = sentence.to_lowercase();
    let at = target_at(&s)?;
    let decided = ["decided", "voted", "today", "reaffirmed", "agreed"]
        .iter()
        .any(|w| s.contains(w));
    if !decided || tells_of_dissent(&s) {
        return None;
    }
    let verb = [
        "maintain",
        "keep",
        "leave",
        "raise",
        "lower",
        "reduce",
        "increase",
        "establish",
    ]
    .iter()
    .filter_map(|w| s.find(w))
    .min()
    .unwrap_or(at);
    level_after(&s, verb.min(at))
}

/// The size of the move `sentence` (of the meeting on `date`) decides, or that it kept the
/// target, worked out from the target of the latest earlier date in the collection that
/// states one.
pub fn size_of(retriever: &dyn Retriever, sentence: &str, date: Date) -> Option<Move> {
    let (action, to) = unstated_action(sentence)?;
    let dates = retriever.dates();
    let (prev, hit, previous_sentence, from) = dates
        .iter()
        .rev()
        .skip_while(|d| **d >= date)
        .take(LOOKBACK)
        .find_map(|&prev| target_on(retriever, prev).map(|(h, s, l)| (prev, h, s, l)))?;
    // Upper bounds: a move from a single rate to a range is measured to its top.
    let bp = ((to.hi - from.hi) * 100.0).round() as i32;
    let agrees = match action {
        Action::Move(Some(Direction::Up)) => bp > 0,
        Action::Move(Some(Direction::Down)) => bp < 0,
        Action::Move(None) => true,
        // A target "in force" that differs from the previous one is more likely a misread
        // than a move the sentence does not mention.
        Action::Hold => bp == 0,
    };
    if !agrees || (bp == 0 && action != Action::Hold) {
        return None;
    }
    let what = if to.is_range() {
        "target range"
    } else {
        "target"
    };
    let when = prev.long_form();
    let sentence = match bp {
        0 => format!(
            "The {what} for the federal funds rate was left unchanged at {}, where the meeting of {when} left it.",
            to.written()
        ),
        _ => format!(
            "The {what} for the federal funds rate was {} by {} basis points: from {}, where the meeting of {when} left it, to {}.",
            if bp > 0 { "raised" } else { "lowered" },
            bp.abs(),
            from.written(),
            to.written()
        ),
    };
    Some(Move {
        sentence,
        previous_hit: hit,
        previous_sentence,
        previous_date: prev,
    })
}

/// The passage of `date` that states the target then, its sentence, and the target.
fn target_on(retriever: &dyn Retriever, date: Date) -> Option<(Hit, String, Level)> {
    let query = "decided target range federal funds rate percent";
    let hint = MetadataHints {
        date_start: date,
        date_end: date,
    };
    let mut timings = Timings::default();
    let (cands, _) = retriever
        .candidates_with_hint(query, None, &[], Some(hint), PASSAGES * 4, &mut timings)
        .ok()?;
    let cut = TopHits {
        hint: Some(hint),
        k: PASSAGES,
        rerank: false,
    };
    let hits = retriever
        .top_hits(query, None, &cands, cut, &mut timings)
        .ok()?;
    hits.into_iter()
        .filter(|h| h.date == Some(date))
        .find_map(|h| {
            let passage = retriever.passage(&h.chunk_id)?;
            let (sentence, level) = sentences(&passage.text).into_iter().find_map(|s| {
                let text = clean_sentence(s);
                stated_target(&text).map(|l| (text, l))
            })?;
            Some((h, sentence, level))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_figures_in_points() {
        assert!(states_size("by 50 basis points to 6 percent"));
        assert!(states_size("by 1/2 percentage point, to 1 percent"));
        assert!(states_size("reduce its target 3/4 of a percentage point"));
        assert!(!states_size(
            "no more than a half percentage point above the goal"
        ));
    }

    #[test]
    fn levels_are_written_as_statements_write_them() {
        assert_eq!(Level { lo: 1.0, hi: 1.25 }.written(), "1 to 1-1/4 percent");
        assert_eq!(Level { lo: 0.0, hi: 0.25 }.written(), "0 to 1/4 percent");
        assert_eq!(Level { lo: 6.5, hi: 6.5 }.written(), "6-1/2 percent");
        assert_eq!(Level { lo: 5.0, hi: 5.0 }.written(), "5 percent");
        assert_eq!(written(4.33), "4.33");
    }

    #[test]
    fn a_move_without_its_size_is_recognised() {
        let raise = "In view of realized and expected labor market conditions and inflation, the Committee decided to raise the target range for the federal funds rate to 1 to 1-1/4 percent.";
        assert_eq!(
            unstated_action(raise),
            Some((
                Action::Move(Some(Direction::Up)),
                Level { lo: 1.0, hi: 1.25 }
            ))
        );
        let cut = "In light of these developments, the Committee decided to lower the target range for the federal funds rate to 0 to 1/4 percent.";
        assert_eq!(
            unstated_action(cut),
            Some((
                Action::Move(Some(Direction::Down)),
                Level { lo: 0.0, hi: 0.25 }
            ))
        );
        let sized = "The Committee decided to lower the target range for the federal funds rate by 1/2 percentage point to 4-3/4 to 5 percent.";
        assert_eq!(unstated_action(sized), None, "the size is already given");
        let hold = "The Committee decided to maintain the target range for the federal funds rate at 3/4 to 1 percent.";
        assert_eq!(unstated_action(hold), None);
        let establish = "The Federal Open Market Committee decided today to establish a target range for the federal funds rate of 0 to 1/4 percent.";
        assert_eq!(
            unstated_action(establish),
            Some((Action::Move(None), Level { lo: 0.0, hi: 0.25 }))
        );
        let guidance = "The Committee anticipates that it will be appropriate to raise the target range for the federal funds rate when inflation rises to 2 percent.";
        assert_eq!(unstated_action(guidance), None, "not a decision");
        let current = "The Committee also reaffirmed its expectation that the current exceptionally low target range for the federal funds rate of 0 to 1/4 percent will be appropriate at least as long as the unemployment rate remains above 6-1/2 percent.";
        assert_eq!(
            unstated_action(current),
            Some((Action::Hold, Level { lo: 0.0, hi: 0.25 }))
        );
        let in_passing = "The Federal Reserve will provide reserves as necessary to promote trading in the federal funds market at rates close to the Federal Open Market Committee's target rate of 5-1/4 percent.";
        assert_eq!(
            unstated_action(in_passing),
            Some((Action::Hold, Level { lo: 5.25, hi: 5.25 }))
        );
    }

    #[test]
    fn a_stated_target_is_the_committees_not_a_dissenters() {
        let hold = "The Committee decided to maintain the target range for the federal funds rate at 3/4 to 1 percent.";
        assert_eq!(stated_target(hold), Some(Level { lo: 0.75, hi: 1.0 }));
        let old = "The Federal Open Market Committee decided today to keep its target for the federal funds rate unchanged at 1 3/4 percent.";
        assert_eq!(stated_target(old), Some(Level { lo: 1.75, hi: 1.75 }));
        let dissent = "Voting against the action was Neel Kashkari, who preferred at this meeting to maintain the target range for the federal funds rate at 3/4 to 1 percent.";
        assert_eq!(stated_target(dissent), None);
        assert_eq!(stated_target("Inflation ran at 2 percent today."), None);
        let view = "The Committee today reaffirmed its view that the current 0 to 1/4 percent target range for the federal funds rate remains appropriate.";
        assert_eq!(stated_target(view), Some(Level { lo: 0.0, hi: 0.25 }));
        let sized = "The Committee decided today to lower the target range for the federal funds rate by 1/2 percentage point, to 1 to 1-1/4 percent.";
        assert_eq!(stated_target(sized), Some(Level { lo: 1.0, hi: 1.25 }));
    }
}
