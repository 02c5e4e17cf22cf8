//! The detector's table of real-shaped fake secrets and near misses, and its property test.
//!
//! The fakes are joined from pieces at run time so that a scanner reading this file does not
//! take them for leaked credentials.

use super::*;
use proptest::prelude::*;

fn j(parts: &[&str]) -> String {
    parts.concat()
}

/// (text, the kind it must be found as, the secret it must mask).
fn must_find() -> Vec<(String, SecretKind, String)> {
    use SecretKind::*;
    let pem_body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n";
    let rows: Vec<(String, SecretKind, String)> = vec![
        (j(&["key id ", "AKIA", "IOSFODNN7EXAMPLE", " for prod"]), AwsAccessKey, j(&["AKIA", "IOSFODNN7EXAMPLE"])),
        (j(&["ASIA", "Y34FZKBOKMUTVV7A"]), AwsAccessKey, j(&["ASIA", "Y34FZKBOKMUTVV7A"])),
        (j(&["creds=", "AKIA", "2E3F4G5H6J7K7LMN", ";"]), AwsAccessKey, j(&["AKIA", "2E3F4G5H6J7K7LMN"])),
        (
            j(&["aws_secret_access_key = ", "wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"]),
            AwsSecretKey,
            j(&["wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"]),
        ),
        (
            j(&["AWS_SECRET_KEY: \"", "je7MtGbClwBF/2Zp9Utk/", "h3yCo8nvbEXAMPLEKEY", "\""]),
            AwsSecretKey,
            j(&["je7MtGbClwBF/2Zp9Utk/", "h3yCo8nvbEXAMPLEKEY"]),
        ),
        (
            j(&["the aws secret key = ", "Zx9Yw8Vu7Ts6Rq5Po4Nm", "3Lk2Jh1Gf0EdCbA9z8y7", " rotates"]),
            AwsSecretKey,
            j(&["Zx9Yw8Vu7Ts6Rq5Po4Nm", "3Lk2Jh1Gf0EdCbA9z8y7"]),
        ),
        (
            j(&["token ", "ghp_", "16C7e42F292c6912E7710c838347Ae178B4a"]),
            GithubToken,
            j(&["ghp_", "16C7e42F292c6912E7710c838347Ae178B4a"]),
        ),
        (
            j(&["gho_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"]),
            GithubToken,
            j(&["gho_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"]),
        ),
        (
            j(&["(ghs_", "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0PpOoNn", ")"]),
            GithubToken,
            j(&["ghs_", "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0PpOoNn"]),
        ),
        (
            j(&[
                "github_pat_",
                "11ABCDEFG0123456789abc",
                "_",
                "defghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
            ]),
            GithubToken,
            j(&[
                "github_pat_",
                "11ABCDEFG0123456789abc",
                "_",
                "defghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
            ]),
        ),
        (j(&["use ", "glpat-", "xY3zQ9vB7nM2kL5pR8tW", " here"]), GitlabToken, j(&["glpat-", "xY3zQ9vB7nM2kL5pR8tW"])),
        (j(&["glpat-", "Ab12Cd34Ef56Gh78Ij90Kl"]), GitlabToken, j(&["glpat-", "Ab12Cd34Ef56Gh78Ij90Kl"])),
        (
            j(&["xoxb-", "123456789012-1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx"]),
            SlackToken,
            j(&["xoxb-", "123456789012-1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx"]),
        ),
        (
            j(&["slack: ", "xoxp-", "2233445566-7788990011-aabbccddee"]),
            SlackToken,
            j(&["xoxp-", "2233445566-7788990011-aabbccddee"]),
        ),
        (j(&["sk_", "live_", "4eC39HqLyjWDarjtT1zdp7dc"]), StripeKey, j(&["sk_", "live_", "4eC39HqLyjWDarjtT1zdp7dc"])),
        (
            j(&["restricted rk_", "live_", "51H8kZ2eZvKYlo2C0aBcDeFg", "."]),
            StripeKey,
            j(&["rk_", "live_", "51H8kZ2eZvKYlo2C0aBcDeFg"]),
        ),
        (
            j(&["OPENAI_KEY sk-", "proj-", "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"]),
            OpenAiKey,
            j(&["sk-", "proj-", "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"]),
        ),
        (
            j(&["sk-", "T3BlbkFJ9x8y7z6w5v4u3t2s1r0qponmlkjihg"]),
            OpenAiKey,
            j(&["sk-", "T3BlbkFJ9x8y7z6w5v4u3t2s1r0qponmlkjihg"]),
        ),
        (
            j(&["key=sk-", "ant-", "api03-", "Xy7Zq2Wp9Rt4Uv6Ks1Lm8Nb3Vc5Xz0Aq2Ws4Ed6Rf8Tg"]),
            AnthropicKey,
            j(&["sk-", "ant-", "api03-", "Xy7Zq2Wp9Rt4Uv6Ks1Lm8Nb3Vc5Xz0Aq2Ws4Ed6Rf8Tg"]),
        ),
        (
            j(&["AIza", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"]),
            GoogleApiKey,
            j(&["AIza", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"]),
        ),
        (
            j(&[
                "Bearer ",
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
                ".",
                "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ",
                ".",
                "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            ]),
            Jwt,
            j(&[
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
                ".",
                "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ",
                ".",
                "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            ]),
        ),
        (
            j(&["key:\n-----BEGIN RSA ", "PRIVATE KEY-----\n", pem_body, "-----END RSA ", "PRIVATE KEY-----\nthanks"]),
            PrivateKey,
            j(&["-----BEGIN RSA ", "PRIVATE KEY-----\n", pem_body, "-----END RSA ", "PRIVATE KEY-----"]),
        ),
        (
            j(&[
                "-----BEGIN OPENSSH ",
                "PRIVATE KEY-----\n",
                "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz",
            ]),
            PrivateKey,
            j(&[
                "-----BEGIN OPENSSH ",
                "PRIVATE KEY-----\n",
                "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz",
            ]),
        ),
        (j(&["db is postgres://u:", "p@h/db"]), ConnectionString, "p".into()),
        (j(&["mongodb+srv://admin:", "S3cr3tPa55@cluster0.example.net/app"]), ConnectionString, "S3cr3tPa55".into()),
        (j(&["DATABASE_URL=mysql://root:", "hunter2@db:3306/shop"]), ConnectionString, "hunter2".into()),
        (j(&["see https://u:", "p@host/x"]), UrlWithPassword, "p".into()),
        (j(&["https://alice:", "tr0ub4dor&3@files.example.com/report.csv"]), UrlWithPassword, "tr0ub4dor&3".into()),
        (
            j(&[
                "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=",
                "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
                ";EndpointSuffix=core.windows.net",
            ]),
            AzureStorageKey,
            j(&["Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="]),
        ),
        (j(&["password=", "Xk9#mP2$vL7q"]), Password, "Xk9#mP2$vL7q".into()),
        (j(&["DB_PASSWORD: \"", "T7f!kQ2zW9rB", "\""]), Password, "T7f!kQ2zW9rB".into()),
        (j(&["the pwd => ", "n8Vq3Lx0Pz4K", " for staging"]), Password, "n8Vq3Lx0Pz4K".into()),
        (j(&["client_secret: ", "a8F3kL9qZ2xV7mN4pR6t"]), GenericSecret, "a8F3kL9qZ2xV7mN4pR6t".into()),
        (
            j(&["api_key=", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"]),
            GenericSecret,
            "9f8e7d6c5b4a39281706f5e4d3c2b1a0".into(),
        ),
    ];
    rows
}

/// Text that holds no secret and must pass untouched.
const NEAR_MISSES: &[&str] = &[
    "Call Priya about the renewal before Friday; she prefers email.",
    "Run 3f2b8c1e-9a4d-4e2f-b6c7-1d2e3f4a5b6c finished at 14:02.",
    "Fixed in a94a8fe5ccb19ba61c4c0873d391e987982fbbd3, see the changelog.",
    "The task-force asked for a risk-assessment of the desk-booking-system-rollout-plan.",
    "Use sk-learn for the model; the sk- prefix alone is not a key.",
    "Order L-1042 shipped; L-1043 waits for stock.",
    "Write to alice.chen@example.com or ops+alerts@acme.example.",
    "The docs are at https://example.com/path?x=1 and https://alice@example.com/repo.",
    "Connect to postgres://localhost:5432/engram with the vault's credentials.",
    "The base64 of hello is SGVsbG8gd29ybGQ= and dGhpcyBpcyBub3QgYSBrZXk= is a sentence.",
    "password:",
    "password: ",
    "Password: see the vault",
    "Reset your password: it expires in 90 days.",
    "secret: yes-we-keep-it-quiet-for-now",
    "The API key lives in the vault; token: none.",
    "AKIA is the prefix of AWS keys; AKIAsmall is not one.",
    "The ghp_ prefix marks a GitHub token; xoxb- a Slack bot's.",
    "A JWT starts with eyJhbGciOi, and this is only its start.",
    "-----BEGIN PUBLIC KEY-----",
    "Quote Q-2026-0042 for 12,400 EUR, due 2026-12-24.",
    "Ticket ABCD-1234: the AWS console was slow.",
];

#[test]
fn every_real_shaped_fake_secret_is_found_as_its_kind() {
    for (text, kind, secret) in must_find() {
        let found = find(&text);
        assert_eq!(found.len(), 1, "{text:?} gave {found:?}");
        let f = &found[0];
        assert_eq!(f.kind, kind, "{text:?}");
        assert_eq!(&text[f.start..f.end], secret, "{text:?}");
        let kept = masked(&text);
        assert_eq!(kept, format!("{}{}{}", &text[..f.start], mask(&secret), &text[f.end..]));
        assert!(secret.len() < 8 || !kept.contains(&secret), "{kept:?} still holds {secret:?}");
        assert!(find(&kept).is_empty(), "{kept:?} still has a secret");
    }
}

#[test]
fn every_near_miss_passes_untouched() {
    for text in NEAR_MISSES {
        assert_eq!(find(text), vec![], "{text:?}");
        assert!(matches!(masked(text), Cow::Borrowed(_)), "{text:?}");
        assert_eq!(refuse("The lesson", text), Ok(()));
    }
}

#[test]
fn a_mask_keeps_a_few_characters_at_each_end_and_never_half_a_short_secret() {
    assert_eq!(mask(&j(&["AKIA", "IOSFODNN7EXAMPLE"])), "AKIA…MPLE");
    assert_eq!(mask("T7f!kQ2zW9rB"), "T7…rB");
    assert_eq!(mask("hunter2"), "****");
    assert_eq!(mask("p"), "****");
}

#[test]
fn a_refusal_names_the_kind_the_place_and_where_the_secret_stands() {
    let text = j(&["Keys for the demo:\n  prod uses ", "AKIA", "IOSFODNN7EXAMPLE", " today"]);
    let refusal = refuse("The lesson", &text).unwrap_err();
    assert_eq!((refusal.finding.line, refusal.finding.column), (2, 13));
    assert_eq!(
        refusal.to_string(),
        "The lesson holds an AWS access key (AKIA…MPLE) at line 2, column 13; secrets are never kept, so nothing \
         was saved. Remove it and try again."
    );
    assert!(!refusal.to_string().contains("IOSFODNN7"));
}

#[test]
fn two_secrets_in_one_text_are_both_masked_in_order() {
    let text =
        j(&["a ", "ghp_", "16C7e42F292c6912E7710c838347Ae178B4a", " and postgres://app:", "Wq8zLm3Xp0Rt@db/app"]);
    let found = find(&text);
    assert_eq!(
        found.iter().map(|f| f.kind).collect::<Vec<_>>(),
        [SecretKind::GithubToken, SecretKind::ConnectionString]
    );
    assert_eq!(masked(&text), "a ghp_…8B4a and postgres://app:Wq…Rt@db/app");
}

#[test]
fn json_strings_are_masked_wherever_they_nest() {
    let key = j(&["AKIA", "IOSFODNN7EXAMPLE"]);
    let mut v = serde_json::json!({"id": "L-1042", "notes": [format!("key {key}")], "n": 3});
    assert!(mask_json(&mut v));
    assert_eq!(v, serde_json::json!({"id": "L-1042", "notes": ["key AKIA…MPLE"], "n": 3}));
    let mut clean = serde_json::json!({"id": "L-1042"});
    assert!(!mask_json(&mut clean));
}

/// A random secret of each shape, with the kind it must be found as.
fn shaped() -> impl Strategy<Value = (SecretKind, String)> {
    use SecretKind::*;
    prop_oneof![
        "[A-Z2-7]{16}".prop_map(|b| (AwsAccessKey, j(&["AKIA", &b]))),
        "[A-Za-z0-9]{36}".prop_map(|b| (GithubToken, j(&["ghp_", &b]))),
        "[A-Za-z0-9]{20}".prop_map(|b| (GitlabToken, j(&["glpat-", &b]))),
        "[0-9]{12}-[A-Za-z0-9]{24}".prop_map(|b| (SlackToken, j(&["xoxb-", &b]))),
        "[A-Za-z0-9]{24}".prop_map(|b| (StripeKey, j(&["sk_", "live_", &b]))),
        // A letter and a digit first, so that the body mixes them as every real key's does.
        "[A-Za-z0-9]{38}".prop_map(|b| (OpenAiKey, j(&["sk-", "proj-", "a1", &b]))),
        "[A-Za-z0-9_-]{35}".prop_map(|b| (GoogleApiKey, j(&["AIza", &b]))),
        "[A-Za-z0-9]{8,20}".prop_map(|b| (ConnectionString, format!("postgres://app:{b}@db.internal/app"))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_random_secret_of_each_shape_in_random_prose_is_found_and_masked(
        (kind, secret) in shaped(),
        before in proptest::collection::vec("[a-z]{1,9}", 0..8),
        after in proptest::collection::vec("[a-z]{1,9}", 0..8),
    ) {
        let lead = before.join(" ");
        let text = format!("{lead}{}{secret} {}", if lead.is_empty() { "" } else { " " }, after.join(" "));
        let found = find(&text);
        prop_assert_eq!(found.len(), 1, "{:?} gave {:?}", text, found);
        prop_assert_eq!(found[0].kind, kind);
        // A connection string's secret is its password; every other shape's is the whole token.
        let whole = &text[found[0].start..found[0].end];
        let expected = match kind {
            SecretKind::ConnectionString => secret["postgres://app:".len()..secret.find('@').unwrap()].to_string(),
            _ => secret.clone(),
        };
        prop_assert_eq!(whole, expected.as_str());
        let kept = masked(&text);
        prop_assert!(!kept.contains(&expected));
        prop_assert!(kept.contains(&mask(&expected)));
        prop_assert!(find(&kept).is_empty());
    }
}
