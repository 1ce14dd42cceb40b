//! Asked for a meeting's policy decision, the minutes' sentence setting the rate with its figure
//! opens the answer, though the sentences about the statement's wording and the Board's rates
//! share more of the question's words: built on generated minutes, with the real index.

mod common;

fn minutes() -> String {
    "# Minutes of the Federal Open Market Committee, November 10, 2026\n\
     \n\
     Developments in Financial Markets and Open Market Operations\n\
     \n\
     The manager reported on developments in domestic and foreign financial markets. Market \
     participants saw the policy decision at this meeting as finely balanced, and survey \
     respondents expected members to reach a decision to hold the policy rate.\n\
     \n\
     Committee Policy Action\n\
     \n\
     In their discussion of monetary policy for the period ahead, members agreed that it would \
     be appropriate to maintain the existing accommodative stance of monetary policy. In \
     particular, they agreed to keep the target range for the federal funds rate at 2-1/4 to \
     2-1/2 percent and to continue reinvesting principal payments from the Federal Reserve's \
     holdings of securities.\n\
     \n\
     With respect to the policy decision and the statement to be released following the \
     meeting, members agreed that only small modifications were needed to reflect the incoming \
     data.\n\
     \n\
     Consistent with the Committee's policy decision, the Board of Governors voted unanimously \
     to leave the interest rate paid on reserve balances unchanged at 2.35 percent.\n"
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_meetings_policy_decision_is_answered_first_by_the_rate_it_set() {
    let a = common::ask_of_document(
        "policy-decision",
        "2026-11-10_minutes.md",
        &minutes(),
        "What policy decision did members reach at the November 2026 meeting?",
    )
    .await
    .answer;
    assert!(
        a.starts_with("In particular, they agreed to keep the target range"),
        "{a}"
    );
    assert!(a.contains("2-1/4 to 2-1/2 percent"), "{a}");
}
