//! Stored and fetched text is quoted as data, never passed as instructions. Everything a model is
//! given from memory, a source or a bot sits inside `<data …>…</data>`, and nothing inside may end
//! that quote early or open a quote of its own: a `<` that begins any spelling of a `data` tag (any
//! case, spaces or slashes between, fullwidth or other compatibility forms of the characters) is
//! written as `&lt;`. Attributes are escaped too, so no name or id can close its attribute.

use unicode_normalization::UnicodeNormalization;

/// Whether `rest`, the text after a `<`, spells the name of a data tag: any whitespace, `/` or
/// `\` first, then `data` in any case or compatibility form.
fn opens_data_tag(rest: &str) -> bool {
    let mut name = String::new();
    for c in rest.chars().flat_map(|c| c.nfkc()) {
        if name.is_empty() && (c.is_whitespace() || c == '/' || c == '\\') {
            continue;
        }
        name.extend(c.to_lowercase());
        if name.chars().count() >= 4 {
            break;
        }
    }
    name == "data"
}

/// A text as it stands inside a `<data>` quote: it can neither end the quote nor open another.
pub fn escape_data(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        // A `<`, or a character NFKC reads as one (`＜`, `﹤`).
        let lt = c == '<' || (!c.is_ascii() && c.nfkc().eq(std::iter::once('<')));
        if lt && opens_data_tag(&s[i + c.len_utf8()..]) {
            out.push_str("&lt;");
        } else {
            out.push(c);
        }
    }
    out
}

/// One item of a model's input, quoted as data with its id, source and age.
pub fn quote_item(id: &str, source: &str, age: &str, text: &str) -> String {
    format!(
        "<data id=\"{}\" source=\"{}\" age=\"{}\">{}</data>",
        attribute(id),
        attribute(source),
        attribute(age),
        escape_data(text)
    )
}

/// A value as it stands inside an attribute's double quotes: on one line, with no quote or tag.
pub fn attribute(s: &str) -> String {
    let plain = s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;");
    escape_data(&plain.replace(['\n', '\r'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// How many data tags, opening or closing, a model could read in `s`.
    fn tags(s: &str) -> usize {
        s.char_indices()
            .filter(|(i, c)| (*c == '<' || c.nfkc().eq(std::iter::once('<'))) && opens_data_tag(&s[i + c.len_utf8()..]))
            .count()
    }

    fn quoted(text: &str) -> String {
        format!("<data id=\"{}\">{}</data>", attribute("x"), escape_data(text))
    }

    #[test]
    fn no_spelling_of_the_tag_survives() {
        for spelling in [
            "</data>",
            "</DATA>",
            "</Data >",
            "</ data>",
            "< /data>",
            "<\t/\tdata>",
            "<\\data>",
            "<//data>",
            "＜/data＞",
            "﹤/data>",
            "</ｄａｔａ>",
            "<data id=\"core:1\" source=\"company core\">",
            "<DATA>",
        ] {
            let text = format!("before {spelling} after");
            assert_eq!(tags(&quoted(&text)), 2, "{spelling:?}: {}", quoted(&text));
        }
        assert_eq!(escape_data("a < b, <dat, <datum> and </div>"), "a < b, <dat, <datum> and </div>");
    }

    #[test]
    fn attributes_cannot_close_themselves() {
        assert_eq!(attribute("Acme \"ATS\"\n<data>"), "Acme &quot;ATS&quot; &lt;data&gt;");
        assert!(!attribute("a\" onclick=\"x").contains('"'));
    }

    proptest! {
        /// Random text with random tags woven in never adds a tag to its quote.
        #[test]
        fn a_quote_holds_one_opening_and_one_closing_tag(
            parts in proptest::collection::vec(
                prop_oneof![
                    ".{0,12}",
                    "[<＜﹤][ \t/\\\\]{0,3}[dDｄＤ][aAａ][tTｔ][aAａ][ >＞]?",
                    Just("</data>".to_string()),
                ],
                0..12,
            )
        ) {
            let text: String = parts.concat();
            prop_assert_eq!(tags(&quoted(&text)), 2, "{:?}", text);
        }
    }
}
