//! Asked who voted for a meeting's action, the minutes' roll call is read even when many
//! passages of the same meeting that repeat the question's words ("voted", "action") rank above
//! it: built on generated minutes, with the real index.

mod common;

/// The Board's votes on its own rates, full of the question's words, that name no voter: more
/// of them than one meeting's passages read for an answer.
fn board_votes(k: usize) -> String {
    let mut p = String::new();
    for j in 1..=5 {
        p.push_str(&format!(
            "The Board of Governors voted for related action {k}-{j} on the primary credit rate \
             at this meeting, after the Committee voted for its policy action in November 2026. "
        ));
    }
    p
}

/// Minutes of one meeting: the Board's votes, then the roll call, which shares little with
/// the question.
fn minutes() -> String {
    let mut m =
        String::from("# Minutes of the Federal Open Market Committee, November 4, 2026\n\n");
    for k in 1..=30 {
        m.push_str(&board_votes(k));
        m.push_str("\n\n");
    }
    // The roll call closes the directive, under a heading of its own, as in the minutes.
    m.push_str("## Domestic Directive\n\n");
    for j in 1..=6 {
        m.push_str(&format!(
            "The Desk is directed in paragraph {j} to conduct operations in Treasury bills and \
             coupon securities as necessary to keep reserves ample, to roll over maturing \
             holdings at auction, and to reinvest principal payments in agency securities. "
        ));
    }
    m.push_str("\n\n");
    m.push_str(
        "Voting for this action: Ada Quinlan, Boris Tamsin, Celia Vordane, and Dmitri Ostrow.\n\n\
         Voting against this action: None.\n\n\
         It was agreed that the next meeting of the Committee would be held on December 15, \
         2026.\n",
    );
    m
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_voted_for_reads_the_roll_call_that_did_not_rank() {
    let r = common::ask_of_document(
        "roll-call-passage",
        "2026-11-04_minutes.md",
        &minutes(),
        "Who voted for the policy action at the November 2026 meeting?",
    )
    .await;
    let a = r.answer;
    assert!(a.starts_with("Voting for this action: Ada Quinlan"), "{a}");
    assert!(a.contains("Dmitri Ostrow"), "{a}");
}
