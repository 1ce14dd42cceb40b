//! Asked which Reserve Banks asked for a discount-rate change, the sentence naming whose
//! requests the Board approved answers, not the change itself, though the question names its
//! size: built on a generated statement, with the real index.

mod common;

fn statement() -> String {
    "# Federal Reserve issues FOMC statement, November 10, 2026\n\
     \n\
     The Federal Open Market Committee decided today to raise its target for the federal funds \
     rate by 25 basis points to 2 percent.\n\
     \n\
     The Committee believes that, even after this action, the stance of monetary policy remains \
     accommodative. Output appears to be growing at a moderate pace despite the rise in energy \
     prices, and labor market conditions have improved.\n\
     \n\
     Voting for the FOMC monetary policy action were: Alan Greenspan, Chairman; Timothy F. \
     Geithner, Vice Chairman; Ben S. Bernanke; Susan S. Bies; and Roger W. Ferguson, Jr.\n\
     \n\
     In a related action, the Board of Governors unanimously approved a 25 basis point increase in \
     the discount rate to 3 percent. In taking this action, the Board approved the requests \
     submitted by the Boards of Directors of the Federal Reserve Banks of Boston, New York, \
     Philadelphia, Minneapolis, and Kansas City.\n"
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn which_banks_asked_for_the_discount_rate_change_is_answered_by_their_requests() {
    let a = common::ask_of_document(
        "who-requested",
        "2026-11-10_statement.md",
        &statement(),
        "Nov 2026 discount rate hike to 3 percent - which Reserve Bank boards had asked for it?",
    )
    .await
    .answer;
    assert!(
        a.contains("the Board approved the requests submitted by"),
        "{a}"
    );
    assert!(a.contains("Minneapolis, and Kansas City"), "{a}");
}
