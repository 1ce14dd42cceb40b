//! Asked why one meeting did what it did, the passage of its minutes where the members weigh
//! the action is read even when many passages of the same meeting that repeat the question's
//! words rank above it: built on generated minutes, with the real index.

mod common;

/// Staff and participants' passages full of the question's words ("expand", "asset
/// purchases") that give no reason for the action: more of them than one meeting's passages
/// read for an answer.
fn discussion(k: usize) -> String {
    let mut p = format!(
        "The manager reported on the mechanics of expanded asset purchases in operation {k}. "
    );
    for j in 1..=9 {
        p.push_str(&format!(
            "Staff described how asset purchases of Treasury securities in tranche {k}-{j} would \
             be settled through the expanded purchase schedule and the dealers' settlement \
             calendar. "
        ));
    }
    p
}

/// Minutes of one meeting: the discussion passages, then the members' deliberation, which
/// shares few words with the question.
fn minutes() -> String {
    let mut m =
        String::from("# Minutes of the Federal Open Market Committee, November 4, 2026\n\n");
    for k in 1..=14 {
        m.push_str(&discussion(k));
        m.push_str("\n\n");
    }
    m.push_str(
        "Though the recovery was continuing, members considered progress toward the \
         Committee's dual mandate as having been disappointingly slow. Moreover, members \
         generally thought that progress was likely to remain slow.\n\n\
         It was agreed that the next meeting of the Committee would be held on December 15, \
         2026.\n",
    );
    m
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn why_reads_the_members_deliberation_that_did_not_rank() {
    let r = common::ask_of_document(
        "members-reasons",
        "2026-11-04_minutes.md",
        &minutes(),
        "Why did the Committee expand its asset purchases in November 2026?",
    )
    .await;
    let a = r.answer;
    assert!(a.contains("disappointingly slow"), "{a}");
    // It is cited like any other sentence of the answer.
    assert!(!r.citations.is_empty(), "{a}");
}
