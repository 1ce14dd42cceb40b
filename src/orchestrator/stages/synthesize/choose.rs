//! Which candidates make the answer, in what order: the best first, no sentence twice (a
//! repeat from another passage is cited beside the first instead), and a sentence that leans on
//! the one before it preceded by that sentence.

use super::{anaphora, member, Candidate, MAX_OVERLAP};
use crate::index::Hit;
use crate::orchestrator::asks::Asks;
use crate::orchestrator::text::jaccard;

/// Other passages cited beside a sentence they repeat.
const MAX_CORROBORATING: usize = 2;
/// Sentences after a dissent read for the dissenter's view (their paragraph seldom gives more).
const MAX_CONTINUING: usize = 2;
/// The same, asked about one member: their view is the whole answer, and it runs on.
const MAX_CONTINUING_MEMBER: usize = 4;
/// How far (bytes from its start) after a sentence the next one may begin to follow it: a long
/// dissent and the paragraph break after it.
const CONTINUING_BYTES: usize = 1000;
/// Sentences brought before a chosen one that leans on them, each leaning on the next.
const MAX_LEANING: usize = 2;
/// Sentences naming a dissenter that follow their dissent, asked what they thought.
const MAX_VIEW: usize = 3;
/// Sentences of a view's paragraph read on after it, asked what a dissenter thought.
const MAX_VIEW_RUNNING_ON: usize = 2;
/// How far after a dissent (bytes from its start) its dissenters' view may go on: the rest of
/// its paragraph and the next.
const VIEW_BYTES: usize = 2000;

/// The sentences of the answer, best first, each with the other hits that repeat it: after
/// the first, only sentences scoring at least `share` of it count, as new sentences or as support;
/// a near-duplicate from another passage is not repeated but cited beside the first.
pub fn choose(
    cands: &[Candidate],
    order: &[usize],
    max_sentences: usize,
    share: f64,
) -> Vec<(usize, Vec<usize>)> {
    let mut chosen: Vec<(usize, Vec<usize>)> = Vec::new();
    for &i in order {
        if let Some((first, _)) = chosen.first() {
            if cands[i].score < cands[*first].score * share {
                break;
            }
        }
        if let Some((j, support)) = chosen
            .iter_mut()
            .find(|(j, _)| repeats(&cands[i].text, &cands[*j].text))
        {
            // The shorter of two sentences one of which holds the other is the one shown: the
            // longer runs on into more ("… Plans. Voting for this action: …"), and its passage
            // still supports the shorter.
            if holds(&cands[*j].text, &cands[i].text) {
                let longer = std::mem::replace(j, i);
                support.retain(|&h| h != cands[i].hit);
                if cands[longer].hit != cands[i].hit {
                    support.insert(0, cands[longer].hit);
                    support.truncate(MAX_CORROBORATING);
                }
                continue;
            }
            let hit = cands[i].hit;
            if hit != cands[*j].hit && !support.contains(&hit) && support.len() < MAX_CORROBORATING
            {
                support.push(hit);
            }
            continue;
        }
        if chosen.len() < max_sentences {
            chosen.push((i, Vec::new()));
        }
    }
    chosen
}

/// Unless a chosen sentence already `holds` what the answer needs (a schedule's month, a
/// dissenter's preference), the best sentence of `order` that `offers` it joins the answer, in
/// place of the last one if the answer already has `max`.
pub fn join_best(
    chosen: &mut Vec<(usize, Vec<usize>)>,
    order: &[usize],
    max: usize,
    holds: impl Fn(usize) -> bool,
    offers: impl Fn(usize) -> bool,
) {
    if chosen.iter().any(|(i, _)| holds(*i)) {
        return;
    }
    if let Some(&i) = order
        .iter()
        .find(|&&i| offers(i) && !chosen.iter().any(|(j, _)| *j == i))
    {
        if chosen.len() >= max {
            chosen.pop();
        }
        chosen.push((i, Vec::new()));
    }
}

/// The sentence that `offers` what the answer is about opens it: the first chosen one that
/// does moves to the front, or, if none does, the best of `order` that does joins in front, in
/// place of the last one if the answer already has `max`.
pub fn lead_with_best(
    chosen: &mut Vec<(usize, Vec<usize>)>,
    order: &[usize],
    max: usize,
    offers: impl Fn(usize) -> bool,
) {
    if let Some(at) = chosen.iter().position(|(i, _)| offers(*i)) {
        let lead = chosen.remove(at);
        chosen.insert(0, lead);
    } else if let Some(&i) = order.iter().find(|&&i| offers(i)) {
        if chosen.len() >= max {
            chosen.pop();
        }
        chosen.insert(0, (i, Vec::new()));
    }
}

/// The chosen sentences, each that leans on the sentence before it ("Moreover, he …",
/// "Consequently, …") preceded by that sentence, each followed by the next sentence when that
/// one lists what it named ("These facilities include …") or gives its particulars ("In
/// particular, …") or, asked why, gives the members'
/// grounds for it ("They noted that …"), and each dissent (asked about a
/// vote) or each dissent and own view of the `member` asked about (whatever is asked) followed
/// by up to [`MAX_CONTINUING`] sentences going on with that view (by pronoun or name, or as the
/// rest of its paragraph: see `anaphora::goes_on_in_paragraph`), and, asked about one member,
/// any chosen sentence by the next of its paragraph when that one adds to the same person's
/// view; none of these counts towards `max`.
pub fn with_antecedents(
    chosen: Vec<(usize, Vec<usize>)>,
    cands: &[Candidate],
    hits: &[Hit],
    asks: Asks,
    member: Option<&str>,
    max: usize,
) -> Vec<(usize, Vec<usize>)> {
    let mut out: Vec<(usize, Vec<usize>)> = Vec::with_capacity(chosen.len() + 1);
    let mut counted = 0;
    for (i, support) in chosen {
        if counted >= max {
            break;
        }
        if out.iter().any(|(j, _)| *j == i) {
            continue;
        }
        let c = &cands[i];
        // The sentence it leans on and, when that one leans on another ("Mr. Lacker dissented
        // … Moreover, he expressed … Finally, he preferred …"), that one too, first.
        let mut before = Vec::new();
        let mut at = i;
        while before.len() < MAX_LEANING {
            match antecedent(cands, hits, at, asks) {
                Some(j) if j != i && !before.contains(&j) => {
                    before.push(j);
                    at = j;
                }
                _ => break,
            }
        }
        for &j in before.iter().rev() {
            if !out.iter().any(|(k, _)| *k == j) {
                out.push((j, Vec::new()));
            }
        }
        out.push((i, support));
        counted += 1;
        // The sentence after it that belongs with it: the other half of a contrast
        // ("Conversely, …", in its passage or the next), a list of what it named ("These
        // facilities include …"), its particulars ("In particular, …") or, asked why, the
        // grounds given for it ("They noted that …").
        if let Some(j) = neighbour_in_document(cands, hits, i, Side::After)
            .filter(|&j| anaphora::belongs_after_previous(&cands[j].text, asks))
        {
            if !out.iter().any(|(k, _)| *k == j) {
                out.push((j, Vec::new()));
            }
        }
        // Asked about a vote, a dissent is followed by the dissenter's view; asked about one
        // member, so is a sentence of their own view.
        let of_member =
            member.is_some_and(|m| member::dissent_by(&c.text, m) || member::own_view(&c.text, m));
        let heads_view = of_member
            || (asks == Asks::Vote
                && (anaphora::is_dissent(&c.text) || anaphora::is_unnamed_preference(&c.text)));
        if heads_view {
            let most = if of_member {
                MAX_CONTINUING_MEMBER
            } else {
                MAX_CONTINUING
            };
            // Whose view the rest of a dissent's or a member's paragraph gives.
            let names: Vec<&str> = match member {
                Some(m) if of_member => vec![m],
                _ => anaphora::dissenter_names(&c.text),
            };
            let in_paragraph = of_member || anaphora::is_dissent(&c.text);
            let mut at = i;
            for _ in 0..most {
                match neighbour_in_document(cands, hits, at, Side::After) {
                    // Asked about one of several dissenters, another's view ends theirs.
                    Some(j)
                        if !(of_member && anaphora::names_another(&cands[j].text, &names))
                            && (anaphora::continues_dissent(&cands[j].text, &c.text)
                                || (in_paragraph && goes_on_with(cands, j, &names))) =>
                    {
                        if !out.iter().any(|(k, _)| *k == j) {
                            out.push((j, Vec::new()));
                        }
                        at = j;
                    }
                    _ => break,
                }
            }
        } else if member.is_some() {
            // Asked about one member, a sentence of the answer is followed by the next of its
            // paragraph when that one adds to the same person's view ("It was also his
            // position that …").
            if let Some(j) = neighbour_in_document(cands, hits, i, Side::After).filter(|&j| {
                !cands[j].opens_paragraph && anaphora::adds_to_their_view(&cands[j].text)
            }) {
                if !out.iter().any(|(k, _)| *k == j) {
                    out.push((j, Vec::new()));
                }
            }
        }
    }
    out
}

/// Each chosen dissent followed by the later sentences that give its dissenters' view by name
/// ("Overall, Mr. Fisher viewed inflation expectations as …", "To help restrain inflation
/// expectations, Mr. Fisher felt it would be appropriate to tighten …"): the [`MAX_VIEW`] that
/// score best, in document order. Asked what a dissenter thought or wanted, their view is the
/// answer, and the minutes give it over the rest of the dissent's paragraph and the next, often
/// after sentences that name no one; each view sentence brings up to [`MAX_VIEW_RUNNING_ON`]
/// more of its paragraph. A view ends at the next dissent; it does not count towards the
/// answer's length. Asked about one `member`, only their view follows.
pub fn with_dissenters_views(
    chosen: Vec<(usize, Vec<usize>)>,
    cands: &[Candidate],
    hits: &[Hit],
    member: Option<&str>,
) -> Vec<(usize, Vec<usize>)> {
    let dissents: Vec<usize> = chosen
        .iter()
        .map(|(i, _)| *i)
        .filter(|&i| anaphora::is_dissent(&cands[i].text))
        .collect();
    let mut out = chosen;
    for d in dissents {
        let dissent = &cands[d];
        let mut names = anaphora::dissenter_names(&dissent.text);
        if let Some(m) = member {
            names.retain(|n| *n == m);
        }
        let document = &hits[dissent.hit].document;
        let after = |p: &Candidate| {
            hits[p.hit].document == *document
                && p.position > dissent.position
                && p.position <= dissent.position + VIEW_BYTES
        };
        // Where the next dissent, another's view, begins.
        let end = cands
            .iter()
            .filter(|p| after(p) && anaphora::is_dissent(&p.text))
            .map(|p| p.position)
            .min()
            .unwrap_or(usize::MAX);
        let mut views: Vec<usize> = (0..cands.len())
            .filter(|&j| {
                let p = &cands[j];
                after(p) && p.position < end && member::gives_dissenters_view(&p.text, &names)
            })
            .collect();
        views.sort_by_key(|&j| cands[j].position);
        // One sentence read from two overlapping passages is one sentence.
        views.dedup_by_key(|j| cands[*j].position);
        // The best of them, as the question's ranking has it, told in document order.
        views.sort_by(|&a, &b| cands[b].score.total_cmp(&cands[a].score));
        views.truncate(MAX_VIEW);
        views.sort_by_key(|&j| cands[j].position);
        for j in views {
            if out.iter().any(|(k, _)| same_sentence(cands, hits, *k, j)) {
                continue;
            }
            // After the dissent and whatever of its view the answer already gives before it.
            let Some(mut at) = out.iter().position(|(k, _)| *k == d) else {
                continue;
            };
            at += 1;
            while out.get(at).is_some_and(|(k, _)| {
                hits[cands[*k].hit].document == *document
                    && cands[*k].position > dissent.position
                    && cands[*k].position < cands[j].position
            }) {
                at += 1;
            }
            out.insert(at, (j, Vec::new()));
            // The rest of that view's paragraph goes on with it ("He believed this approach
            // would leave … It would also mitigate the need …").
            let mut last = j;
            for _ in 0..MAX_VIEW_RUNNING_ON {
                let Some(k) = neighbour_in_document(cands, hits, last, Side::After)
                    .filter(|&k| cands[k].position < end && goes_on_with(cands, k, &names))
                else {
                    break;
                };
                if out.iter().any(|(x, _)| same_sentence(cands, hits, *x, k)) {
                    break;
                }
                at += 1;
                out.insert(at, (k, Vec::new()));
                last = k;
            }
        }
    }
    out
}

/// Whether candidate `j` goes on, within its paragraph, with the view of the members `names`
/// (`anaphora::goes_on_in_paragraph`); the meeting's procedure never does.
fn goes_on_with(cands: &[Candidate], j: usize, names: &[&str]) -> bool {
    let c = &cands[j];
    !c.opens_paragraph && !c.procedural && anaphora::goes_on_in_paragraph(&c.text, names)
}

/// Whether candidates `a` and `b` are one sentence of one document, read from two passages.
fn same_sentence(cands: &[Candidate], hits: &[Hit], a: usize, b: usize) -> bool {
    hits[cands[a].hit].document == hits[cands[b].hit].document
        && cands[a].position == cands[b].position
}

/// The sentence candidate `i` leans on, if it leans on one (`anaphora::leans_on_previous`): the
/// sentence before it in its passage or, opening a paragraph ("In light of these developments,
/// the Committee decided …"), the last of the paragraph before.
fn antecedent(cands: &[Candidate], hits: &[Hit], i: usize, asks: Asks) -> Option<usize> {
    let c = &cands[i];
    if !anaphora::leans_on_previous(&c.text, asks) {
        return None;
    }
    cands
        .iter()
        .position(|p| p.hit == c.hit && c.seq > 0 && p.seq == c.seq - 1)
        .or_else(|| {
            (c.seq == 0)
                .then(|| neighbour_in_document(cands, hits, i, Side::Before))
                .flatten()
        })
}

/// Which way [`neighbour_in_document`] looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Before,
    After,
}

/// The candidate next to candidate `i` in its document on `side` (in its passage or the one
/// beside it: a dissenter's view often opens the next paragraph, a conclusion opening one leans
/// on the last sentence of the one before), beginning within [`CONTINUING_BYTES`] of it.
fn neighbour_in_document(cands: &[Candidate], hits: &[Hit], i: usize, side: Side) -> Option<usize> {
    let c = &cands[i];
    let document = &hits[c.hit].document;
    let near = cands.iter().enumerate().filter(|(_, p)| {
        let gap = match side {
            Side::After => p.position.checked_sub(c.position),
            Side::Before => c.position.checked_sub(p.position),
        };
        hits[p.hit].document == *document
            && gap.is_some_and(|g| g > 0 && g <= CONTINUING_BYTES)
            && p.text != c.text
    });
    match side {
        Side::After => near.min_by_key(|(_, p)| p.position),
        Side::Before => near.max_by_key(|(_, p)| p.position),
    }
    .map(|(j, _)| j)
}

/// The surnames a bare roll call lists ("Voting against this action: Richard W. Fisher and
/// Charles I. Plosser." gives Fisher, Plosser; the older minutes' "Votes against this action:
/// Messrs. Fisher and Plosser." the same); `None` for any other sentence.
pub(super) fn roll_call_names(sentence: &str) -> Option<Vec<&str>> {
    let rest = sentence
        .strip_prefix("Voting against ")
        .or_else(|| sentence.strip_prefix("Votes against "))?;
    let list = ["this action:", "the action:", "the policy action:"]
        .iter()
        .find_map(|a| rest.strip_prefix(a))?;
    let names: Vec<&str> = list
        .trim()
        .trim_end_matches('.')
        .split([','])
        .flat_map(|part| part.split(" and "))
        .filter_map(|name| name.split_whitespace().last())
        .filter(|w| *w != "and")
        .collect();
    (!names.is_empty()).then_some(names)
}

/// A chosen bare roll call whose every dissenter another chosen sentence names, if any.
pub fn redundant_roll_call(chosen: &[(usize, Vec<usize>)], cands: &[Candidate]) -> Option<usize> {
    chosen.iter().map(|(i, _)| *i).find(|&i| {
        roll_call_names(&cands[i].text).is_some_and(|names| {
            names.iter().all(|name| {
                chosen.iter().any(|(j, _)| {
                    *j != i
                        && roll_call_names(&cands[*j].text).is_none()
                        && cands[*j]
                            .text
                            .split(|c: char| !c.is_alphanumeric())
                            .any(|w| w == *name)
                })
            })
        })
    })
}

/// Whether two sentences say the same: mostly the same words, or one holds the other whole (a
/// quoted sentence run together with the next one, "… Plans. Voting for this action: …").
fn repeats(a: &str, b: &str) -> bool {
    jaccard(a, b) > MAX_OVERLAP || holds(a, b) || holds(b, a)
}

/// Whether `long` holds `short` whole and says more.
fn holds(long: &str, short: &str) -> bool {
    let plain = |s: &str| {
        s.to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .trim_end_matches(['.', ';', ':', '"', '\u{201D}'])
            .to_string()
    };
    let (long, short) = (plain(long), plain(short));
    short.len() >= 40 && long.len() > short.len() && long.contains(short.as_str())
}

/// The hits the chosen sentences cite, their own and the ones that repeat them.
pub fn cited_hits_of(chosen: &[(usize, Vec<usize>)], cands: &[Candidate]) -> Vec<usize> {
    chosen
        .iter()
        .flat_map(|(i, support)| std::iter::once(cands[*i].hit).chain(support.iter().copied()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sentence of passage 0 at byte `position` of its document.
    fn placed(text: &str, position: usize) -> Candidate {
        Candidate {
            position,
            ..Candidate::new(text, 0)
        }
    }

    /// A sentence of passage 0 at byte `position`, the `position / 100`th of its passage, that
    /// opens a paragraph or goes on with one.
    fn in_paragraph(text: &str, position: usize, opens_paragraph: bool) -> Candidate {
        Candidate {
            position,
            seq: position / 100,
            opens_paragraph,
            ..Candidate::new(text, 0)
        }
    }

    /// What the one sentence chosen, `first`, grows into in an answer of one sentence.
    fn grown(
        first: usize,
        cands: &[Candidate],
        hits: &[Hit],
        asks: Asks,
        member: Option<&str>,
    ) -> Vec<(usize, Vec<usize>)> {
        with_antecedents(vec![(first, vec![])], cands, hits, asks, member, 1)
    }

    /// A hit of `document` (which passages share a document is all these tests need).
    fn hit(document: &str) -> Hit {
        Hit {
            document: document.into(),
            ..Hit::default()
        }
    }

    #[test]
    fn a_sentence_run_into_the_next_repeats_it() {
        let quoted = "The Committee expects to begin implementing its balance sheet normalization program relatively soon.";
        let run = "The Committee expects to begin implementing its balance sheet normalization program relatively soon. Voting for this action: Janet L. Yellen, William C. Dudley, Lael Brainard, Charles L. Evans, Stanley Fischer, Patrick Harker.";
        assert!(repeats(quoted, run));
        assert!(repeats(run, quoted));
        assert!(!repeats(
            quoted,
            "The Committee decided to maintain the target range for the federal funds rate."
        ));
    }
    #[test]
    fn of_a_sentence_and_one_that_holds_it_the_shorter_is_shown() {
        let cand = |text: &str, hit: usize, score: f64| Candidate {
            score,
            ..Candidate::new(text, hit)
        };
        let cands = [
            cand("The Committee expects to begin implementing its balance sheet normalization program relatively soon. Voting for this action: Janet L. Yellen, William C. Dudley, Lael Brainard.", 0, 1.0),
            cand("The Committee expects to begin implementing its balance sheet normalization program relatively soon.", 1, 0.9),
        ];
        assert_eq!(
            choose(&cands, &[0, 1], 3, 0.6),
            vec![(1, vec![0])],
            "the longer one's passage is cited beside the shorter"
        );
    }
    #[test]
    fn a_roll_call_another_sentence_covers_gives_up_its_place() {
        let cand = |text: &str| Candidate::new(text, 0);
        assert_eq!(
            roll_call_names("Voting against this action: Richard W. Fisher, Narayana Kocherlakota, and Charles I. Plosser."),
            Some(vec!["Fisher", "Kocherlakota", "Plosser"])
        );
        assert_eq!(
            roll_call_names("Voting against the action: Esther L. George and Eric Rosengren."),
            Some(vec!["George", "Rosengren"])
        );
        // The older minutes' form.
        assert_eq!(
            roll_call_names("Votes against this action: Messrs. Fisher and Plosser."),
            Some(vec!["Fisher", "Plosser"])
        );
        assert_eq!(
            roll_call_names(
                "Voting against the action was Esther L. George, who preferred to hold."
            ),
            None
        );
        let cands = [
            cand("Voting against this action: Esther L. George and Eric Rosengren."),
            cand("Ms. George dissented because she preferred to hold."),
            cand("Mr. Rosengren dissented because he preferred to hold."),
            cand("Voting against this action: Esther L. George."),
        ];
        // Both dissenters are named elsewhere: the roll call goes.
        assert_eq!(
            redundant_roll_call(&[(0, vec![]), (1, vec![]), (2, vec![])], &cands),
            Some(0)
        );
        // Rosengren is named only by the roll call: it stays.
        assert_eq!(
            redundant_roll_call(&[(0, vec![]), (1, vec![])], &cands),
            None
        );
        // Two roll calls do not vouch for each other.
        assert_eq!(
            redundant_roll_call(&[(0, vec![]), (3, vec![])], &cands),
            None
        );
    }

    #[test]
    fn the_best_sentence_offering_what_is_missing_joins_in_place_of_the_last() {
        let order = [4, 2, 7, 5];
        let mut chosen = vec![(4, vec![]), (2, vec![])];
        // Already held: nothing changes.
        join_best(&mut chosen, &order, 2, |i| i == 2, |i| i == 5);
        assert_eq!(chosen, vec![(4, vec![]), (2, vec![])]);
        // Missing, and the answer is full: the best offering it replaces the last.
        join_best(&mut chosen, &order, 2, |i| i > 6, |i| i >= 5);
        assert_eq!(chosen, vec![(4, vec![]), (7, vec![])]);
        // Room left: it is added; nothing offers it: nothing changes.
        join_best(&mut chosen, &order, 3, |_| false, |i| i == 5);
        assert_eq!(chosen, vec![(4, vec![]), (7, vec![]), (5, vec![])]);
        join_best(&mut chosen, &order, 3, |_| false, |i| i == 9);
        assert_eq!(chosen.len(), 3);
    }

    #[test]
    fn asked_about_one_member_their_own_view_goes_on_in_its_further_points() {
        let hits = [hit("m.md")];
        let cands = [
            placed(
                "In Mr. Kashkari's view, wage growth had not picked up.",
                100,
            ),
            placed("In addition, the yield curve had flattened.", 160),
            placed("Participants discussed the balance sheet.", 220),
        ];
        // Asked why Kashkari dissented, his view is followed by its further point, not by the
        // sentence after it, which speaks of no one.
        assert_eq!(
            grown(0, &cands, &hits, Asks::Reason, Some("Kashkari")),
            vec![(0, vec![]), (1, vec![])]
        );
        // Not asked about him, it stands alone.
        assert_eq!(
            grown(0, &cands, &hits, Asks::Reason, None),
            vec![(0, vec![])]
        );
        // His view runs on for four sentences; a dissent's view, not asked about him, for two.
        let long = [
            placed("Mr. Kashkari dissented because he preferred to hold.", 100),
            placed("He judged that the labor market had slack.", 160),
            placed("In addition, he noted that inflation was low.", 220),
            placed(
                "In these circumstances, he believed it appropriate to wait.",
                280,
            ),
            placed("He saw little cost in waiting.", 340),
            placed("He also noted the risks abroad.", 400),
        ];
        let followed = |member| {
            grown(0, &long, &hits, Asks::Vote, member)
                .into_iter()
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        };
        assert_eq!(followed(Some("Kashkari")), vec![0, 1, 2, 3, 4]);
        assert_eq!(followed(None), vec![0, 1, 2]);
    }

    #[test]
    fn asked_what_dissenters_thought_their_named_view_follows_the_dissent() {
        // Passages 0 and 1 are consecutive parts of the minutes; passage 2 is the statement.
        let hits = [hit("m.md"), hit("m.md"), hit("s.md")];
        let cand = |text: &str, hit: usize, position: usize| Candidate {
            position,
            ..Candidate::new(text, hit)
        };
        let cands = [
            cand(
                "Mr. Fisher dissented because he preferred an increase.",
                0,
                1000,
            ),
            cand("Commodity prices were rising.", 0, 1100),
            cand(
                "The Committee decided to keep the target unchanged.",
                2,
                1200,
            ),
            cand("Mr. Fisher was concerned about pricing behavior.", 0, 1300),
            cand(
                "Overall, Mr. Fisher viewed expectations as less well anchored.",
                1,
                1900,
            ),
            // The same sentence read from the next passage too.
            cand(
                "Overall, Mr. Fisher viewed expectations as less well anchored.",
                0,
                1900,
            ),
            cand("Mr. Fisher felt the Committee should tighten.", 1, 2000),
            cand(
                "Mr. Plosser dissented because he preferred a larger increase.",
                1,
                2100,
            ),
            cand("Mr. Fisher noted a later point.", 1, 2200),
        ];
        let views = |chosen: Vec<(usize, Vec<usize>)>, member| {
            with_dissenters_views(chosen, &cands, &hits, member)
                .into_iter()
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        };
        // After the dissent and what the answer already gives of its paragraph, in document
        // order, up to the next dissent; the statement's sentence stays where it was.
        assert_eq!(
            views(vec![(0, vec![]), (1, vec![]), (2, vec![])], None),
            vec![0, 1, 3, 4, 6, 2]
        );
        // A view already in the answer is not repeated.
        assert_eq!(
            views(vec![(0, vec![]), (4, vec![])], None),
            vec![0, 3, 4, 6]
        );
        // Asked about another dissenter, Fisher's view does not follow his dissent.
        assert_eq!(views(vec![(0, vec![])], Some("Plosser")), vec![0]);
        // No dissent, no view.
        assert_eq!(views(vec![(1, vec![])], None), vec![1]);
        // Of four, the three scoring best follow, in document order.
        let scored = |text: &str, position: usize, score: f64| Candidate {
            position,
            score,
            ..Candidate::new(text, 0)
        };
        let many = [
            scored(
                "Mr. Fisher dissented because he preferred an increase.",
                0,
                0.9,
            ),
            scored("Mr. Fisher noted strong demand.", 100, 0.5),
            scored("Mr. Fisher was concerned about pricing.", 200, 0.1),
            scored("Mr. Fisher saw expectations drifting up.", 300, 0.4),
            scored("Mr. Fisher felt the Committee should tighten.", 400, 0.6),
        ];
        let best: Vec<usize> = with_dissenters_views(vec![(0, vec![])], &many, &hits[..1], None)
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        assert_eq!(best, vec![0, 1, 3, 4]);
    }

    #[test]
    fn a_sentence_naming_things_in_general_is_followed_by_their_list() {
        let hits = [hit("s.md")];
        let cands = [
            placed(
                "Most of the special liquidity facilities will expire on February 1.",
                100,
            ),
            placed(
                "These facilities include the Commercial Paper Funding Facility and the Term Securities Lending Facility.",
                170,
            ),
            placed("The Committee will maintain the target range.", 280),
        ];
        // Whatever is asked, and beside the answer's one sentence, not in its place.
        assert_eq!(
            grown(0, &cands, &hits, Asks::Decision, None),
            vec![(0, vec![]), (1, vec![])]
        );
        // A sentence that lists nothing stays where the ranking put it.
        assert_eq!(
            grown(1, &cands, &hits, Asks::Decision, None),
            vec![(1, vec![])]
        );
    }

    #[test]
    fn asked_why_a_conclusion_is_followed_by_the_grounds_given_for_it() {
        let hits = [hit("m.md")];
        let cands = [
            placed(
                "Nonetheless, they concluded that an easing action was not desirable at this time.",
                100,
            ),
            placed(
                "They noted that not enough time had elapsed since the end of the war.",
                190,
            ),
        ];
        assert_eq!(
            grown(0, &cands, &hits, Asks::Reason, None),
            vec![(0, vec![]), (1, vec![])]
        );
        // Asked what was decided, the decision stands alone.
        assert_eq!(
            grown(0, &cands, &hits, Asks::Decision, None),
            vec![(0, vec![])]
        );
    }

    #[test]
    fn a_dissenters_view_in_the_next_passage_follows_the_dissent() {
        let cand = |text: &str, hit: usize, position: usize| Candidate {
            position,
            ..Candidate::new(text, hit)
        };
        // Passages 0 and 2 are consecutive parts of one document; passage 1 is another's.
        let hits = [hit("m.md"), hit("s.md"), hit("m.md")];
        let cands = [
            cand(
                "Mr. Kashkari dissented because he preferred to hold.",
                0,
                500,
            ),
            cand(
                "In his view, recent data had increased doubts about inflation.",
                2,
                560,
            ),
            cand("He preferred to wait for more evidence.", 2, 640),
            cand("Inflation had moved up.", 2, 700),
            cand("He voted for the action.", 1, 520),
        ];
        assert_eq!(
            grown(0, &cands, &hits, Asks::Vote, None),
            vec![(0, vec![]), (1, vec![]), (2, vec![])]
        );
        // Too far on, it is another paragraph's.
        let far = [
            cand(
                "Mr. Kashkari dissented because he preferred to hold.",
                0,
                500,
            ),
            cand(
                "In his view, recent data had increased doubts.",
                2,
                500 + 2000,
            ),
        ];
        assert_eq!(grown(0, &far, &hits, Asks::Vote, None), vec![(0, vec![])]);
    }

    #[test]
    fn a_members_view_runs_on_to_the_end_of_the_dissents_paragraph() {
        let cand = in_paragraph;
        let cands = [
            cand(
                "Mr. Lacker dissented because he believed that further tightening was needed.",
                0,
                true,
            ),
            // No pronoun, no name: only its paragraph says whose view it is.
            cand(
                "The inflation outlook had deteriorated in the intermeeting period.",
                100,
                false,
            ),
            cand(
                "The Committee then turned to a discussion of its communications.",
                200,
                false,
            ),
        ];
        let hits = [hit("m.md")];
        let lacker = Some("Lacker");
        assert_eq!(
            grown(0, &cands, &hits, Asks::Reason, lacker),
            vec![(0, vec![]), (1, vec![])],
            "the rest of his paragraph, up to the Committee's own business"
        );
        // The same sentence opening the next paragraph is not his.
        let apart = [
            cand(
                "Mr. Lacker dissented because he believed that further tightening was needed.",
                0,
                true,
            ),
            cand(
                "The inflation outlook had deteriorated in the intermeeting period.",
                100,
                true,
            ),
        ];
        assert_eq!(
            grown(0, &apart, &hits, Asks::Reason, lacker),
            vec![(0, vec![])]
        );
    }

    #[test]
    fn asked_about_one_of_two_dissenters_the_others_view_ends_theirs() {
        // The first opens the paragraph; the rest go on with it.
        let cand = |text: &str, position: usize| in_paragraph(text, position, position == 0);
        let cands = [
            cand(
                "George and Mester dissented because they preferred to increase the target range.",
                0,
            ),
            cand("Ms. George judged that another step was appropriate.", 100),
            cand(
                "While low rates had supported the economy, they were no longer warranted.",
                200,
            ),
        ];
        let hits = [hit("m.md")];
        assert_eq!(
            grown(0, &cands, &hits, Asks::Vote, Some("Mester")),
            vec![(0, vec![])]
        );
        // Asked about George, it is her view.
        assert_eq!(
            grown(0, &cands, &hits, Asks::Vote, Some("George")),
            vec![(0, vec![]), (1, vec![]), (2, vec![])]
        );
    }

    #[test]
    fn asked_about_a_member_what_adds_to_their_view_follows_any_sentence() {
        // The first opens the paragraph; the rest go on with it.
        let cand = |text: &str, position: usize| in_paragraph(text, position, position == 0);
        let cands = [
            cand(
                "Following the aggressive actions already taken, it would be prudent to give policy more time to work.",
                0,
            ),
            cand(
                "It was also his position that a cut could increase interest rate volatility.",
                100,
            ),
        ];
        let hits = [hit("m.md")];
        assert_eq!(
            grown(0, &cands, &hits, Asks::Reason, Some("Hoenig")),
            vec![(0, vec![]), (1, vec![])]
        );
        // Not asked about a member, the answer stays as chosen.
        assert_eq!(
            grown(0, &cands, &hits, Asks::Reason, None),
            vec![(0, vec![])]
        );
    }

    #[test]
    fn a_chain_of_sentences_leaning_on_each_other_is_brought_from_its_start() {
        let cand = |text: &str, seq: usize| Candidate {
            position: 100 * seq,
            seq,
            ..Candidate::new(text, 0)
        };
        let cands = [
            cand(
                "Mr. Lacker dissented because he saw no gain from stimulus.",
                0,
            ),
            cand("Moreover, he opposed buying MBS, favouring one sector.", 1),
            cand("Finally, he preferred to omit the date.", 2),
        ];
        let hits = [hit("m.md")];
        // "Finally, he …" leans on "Moreover, he …", which leans on the sentence naming him.
        assert_eq!(
            grown(2, &cands, &hits, Asks::Decision, None),
            vec![(0, vec![]), (1, vec![]), (2, vec![])]
        );
    }

    #[test]
    fn a_sentence_leaning_on_the_one_before_brings_it_first() {
        let cand = |text: &str, hit: usize, seq: usize| Candidate {
            position: 100 * seq,
            seq,
            ..Candidate::new(text, hit)
        };
        let cands = [
            cand(
                "Mr. Lacker dissented because he saw no gain from more stimulus.",
                0,
                4,
            ),
            cand(
                "Moreover, he expressed his opposition to the purchase of more MBS.",
                0,
                5,
            ),
            cand("Moreover, he would have preferred a shorter horizon.", 1, 5),
            cand("The Committee decided to buy more MBS.", 1, 0),
        ];
        let hits = [hit("a.md"), hit("b.md")];
        // The pronoun's sentence is preceded by the one naming him; the antecedent does not
        // count towards the answer's length.
        assert_eq!(
            with_antecedents(
                vec![(1, vec![]), (3, vec![])],
                &cands,
                &hits,
                Asks::Vote,
                None,
                2
            ),
            vec![(0, vec![]), (1, vec![]), (3, vec![])]
        );
        // No sentence before it in its passage among the candidates: it stands alone.
        assert_eq!(
            with_antecedents(vec![(2, vec![])], &cands, &hits, Asks::Vote, None, 3),
            vec![(2, vec![])]
        );
        // Asked about a vote, the dissent is followed by the dissenter's view; asked for a
        // decision, it is not.
        assert_eq!(
            grown(0, &cands, &hits, Asks::Vote, None),
            vec![(0, vec![]), (1, vec![])]
        );
        assert_eq!(
            grown(0, &cands, &hits, Asks::Decision, None),
            vec![(0, vec![])]
        );
        // An antecedent already chosen is not repeated.
        assert_eq!(
            with_antecedents(
                vec![(0, vec![]), (1, vec![])],
                &cands,
                &hits,
                Asks::Vote,
                None,
                3
            ),
            vec![(0, vec![]), (1, vec![])]
        );
    }

    #[test]
    fn a_contrast_comes_with_both_halves() {
        let cand = |text: &str, seq: usize| Candidate {
            position: 100 * seq,
            seq,
            ..Candidate::new(text, 0)
        };
        let hits = [hit("s.md")];
        let cands = [
            cand("If progress is faster, increases will come sooner.", 0),
            cand(
                "Conversely, if progress is slower, increases will come later.",
                1,
            ),
            cand("Inflation is low.", 2),
        ];
        // Either half chosen brings the other, in the document's order.
        assert_eq!(
            grown(0, &cands, &hits, Asks::Decision, None),
            vec![(0, vec![]), (1, vec![])]
        );
        assert_eq!(
            grown(1, &cands, &hits, Asks::Decision, None),
            vec![(0, vec![]), (1, vec![])]
        );
        assert_eq!(
            grown(2, &cands, &hits, Asks::Decision, None),
            vec![(2, vec![])]
        );
    }

    #[test]
    fn a_conclusion_opening_a_paragraph_brings_the_one_before_it() {
        let cand = |text: &str, hit: usize, seq: usize, position: usize| Candidate {
            position,
            seq,
            ..Candidate::new(text, hit)
        };
        // Passages 0 and 1 are consecutive paragraphs of one document; 2 is another's.
        let hits = [hit("s.md"), hit("s.md"), hit("t.md")];
        let cands = [
            cand("Spending has slowed.", 0, 0, 100),
            cand("The crisis will weigh heavily on activity.", 0, 1, 400),
            cand(
                "In light of these developments, the Committee decided to hold.",
                1,
                0,
                600,
            ),
            cand("Prices rose.", 2, 3, 550),
        ];
        // Asked why, the paragraph before gives the developments; asked what was decided, it
        // is not needed.
        assert_eq!(
            grown(2, &cands, &hits, Asks::Reason, None),
            vec![(1, vec![]), (2, vec![])]
        );
        assert_eq!(
            grown(2, &cands, &hits, Asks::Decision, None),
            vec![(2, vec![])]
        );
        // Too far back, it is not the sentence the conclusion follows.
        let far = [
            cand("The crisis will weigh heavily on activity.", 0, 1, 400),
            cand(
                "In light of these developments, the Committee decided to hold.",
                1,
                0,
                400 + 2000,
            ),
        ];
        assert_eq!(grown(1, &far, &hits, Asks::Reason, None), vec![(1, vec![])]);
    }
}
