//! Asked by how much a rate other than the policy rate moved ("by how much was the primary
//! credit rate raised?"), the Board's sentence moving that rate answers first, not the
//! Committee's decision on the target range: built on generated minutes, with the real index.

mod common;

fn minutes() -> String {
    "# Minutes of the Federal Open Market Committee, June 14-15, 2026\n\
     \n\
     Members agreed that the Committee should raise the target range for the federal funds rate to \
     1-1/2 to 1-3/4 percent. The Committee directed the Desk to undertake open market operations \
     as necessary to maintain the federal funds rate in a target range of 1-1/2 to 1-3/4 percent, \
     effective June 16, 2026. To support the Committee's decision to raise the target range for \
     the federal funds rate, the Board of Governors of the Federal Reserve System voted \
     unanimously to raise the interest rate paid on reserve balances to 1.65 percent, effective \
     June 16, 2026. The Board of Governors of the Federal Reserve System voted unanimously to \
     approve a 3/4 percentage point increase in the primary credit rate to 1.75 percent, effective \
     June 16, 2026.\n\
     \n\
     Participants noted that the sizable increases in credit card purchase volumes were roughly \
     offset by high levels of credit card payments. It was agreed that the next meeting of the \
     Committee would be held on Tuesday-Wednesday, July 26-27, 2026.\n"
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn how_much_another_rate_moved_is_answered_by_that_rates_move() {
    let a = common::ask_of_document(
        "other-rate-move",
        "2026-06-15_minutes.md",
        &minutes(),
        "june 2026 minutes: by how much was the primary credit rate raised, and to what level?",
    )
    .await
    .answer;
    assert!(
        a.starts_with(
            "The Board of Governors of the Federal Reserve System voted unanimously to approve a \
             3/4 percentage point increase in the primary credit rate"
        ),
        "{a}"
    );
}
