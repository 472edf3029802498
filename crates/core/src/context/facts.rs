//! The fact guard of conversation summaries: summarizers drop the exact values users need later
//! (order numbers, amounts, dates, addresses), so before old turns are summarized [`extract`]
//! lists their key facts, and after the summary call [`guard`] appends every fact the summary
//! lost, verbatim, under a `Key facts:` list. [`too_short`] flags a summary too thin to trust.
//!
//! Owns: recognizing facts in free text (English and Chinese, full-width forms included) and
//! deciding whether a summary still states them. Knows nothing about messages or the model.
//!
//! Invariants (checked by the tests, property tests included):
//! - **Exact text.** Every [`Fact::text`] is a substring of the input exactly as written (a
//!   full-width `２０２４年３月` stays full-width); it is never empty and never holds a line break.
//! - **Order and uniqueness.** Facts come in order of first appearance, each text once; facts
//!   never overlap.
//! - **Never panics, linear time.** Any `&str` is accepted (CJK, emoji, control characters);
//!   slicing is on character boundaries only; every recognizer either scans a bounded stretch or
//!   is not retried inside a stretch it already rejected, so the work is linear in the input.
//! - **No false "present".** [`missing`] reports a fact as present only when its text occurs in
//!   the summary up to trivial formatting: whitespace (inside one line), full-width vs
//!   half-width forms, hyphen variants and thousands separators. Every digit of the fact is then
//!   in the summary, in order, with no other digit glued to either end.
//! - **Guarded.** After [`guard`], [`missing`] finds nothing missing in the guarded text, and
//!   guarding it again changes nothing (idempotent).
//!
//! Recognition is hand-written over characters (no regex engine) and uses ASCII tests plus
//! explicit character lists only, so no Unicode tables end up in the WebAssembly. What counts
//! as a fact, on purpose (the rules, briefly; the tests are the full list):
//! - **Id**: a token of ASCII letters and digits, joined by `-` `_` `/` `#` `.`, with at least
//!   4 digits and a letter (`PRE202601001`, `ORD-2024-00042`, `INV/2023/0042`, UUIDs), or 2+
//!   capitals and 3+ digits (`CA925`), or 2+ digits alternating with letters 3+ times
//!   (`A12-B7`), or 7+ one-case hex characters with a digit (`a3f9c21`), or digits alone: 6+ of
//!   them (`20240315001`, `123-456`) or 4+ dotted parts (`192.168.1.1`); `#` followed by 2+
//!   digits (`#4521`). Not: short numbers, a year (`2024`), a year range (`2020-2024`), a
//!   decade or ordinal (`1990s`, `2nd`), words with a small number (`COVID-19`, `GPT-4o`,
//!   `sha256`, `H264`, `v1.2.3`). Accepted false positives: a word joined to 4+ digits
//!   (`ISO-8601`, `x86_64`, `1080p`). An invalid date of digits (`2024-13-45`) is an Id.
//! - **Amount**: a number with a currency symbol (`$` `€` `£` `¥` `₹` …, `US$`), a currency
//!   code (`USD 45`, `45 USD`, `RMB300`), a currency word (`45 dollars`) or a Chinese currency
//!   (`8000元`, `人民币500元`, `3.5万元`), or a number with 万/亿 alone (`1.2亿`). Optional
//!   magnitude (`$5k`, `$3 million`). Thousands separators are `,` groups of three; a decimal
//!   comma (`3,50 €`) is not recognized.
//! - **Percent**: `12.5%`, `50 %`, `3 percent`, `3个百分点`.
//! - **Date** (a date, a time of day, or both): `2024-03-15` (with `T14:30:00Z` or ` 14:30`),
//!   `2024/3/15`, `15.03.2024`, `3/15/24`, `2024-03`, `March 15, 2024`, `15 March 2024`,
//!   `Mar 15`, `March 2024` (month names capitalized), `2024年3月15日`, `3月15日`, `14:30`,
//!   `3pm`, `下午3点`, `15点30分`, `3点半`. A year alone is not a date, nor is `3点` without a
//!   part of the day or a date before it (it also means "3 points").
//! - **Email**; **Url** (`http://`, `https://`, `www.`; it ends at whitespace or non-ASCII
//!   text, and trailing `.,;:!?'"*_` and unbalanced `)` `]` are left out).
//! - **Quantity**: a number with a unit of measure or duration from a fixed list (`500 mg`,
//!   `3.5kg`, `20°C`, `100 GB`, `2 hours`, `2 小时`, `3天`, `5公斤`, `10 件`, `3人`); at most
//!   one space between number and unit. Not a bare count (`3 cats`, `version 2`).
//! - **Phone**: `+` with 8–15 digits in groups (`+86 138 0013 8000`), `(555) 123-4567`,
//!   `555-123-4567`, `138-0013-8000`, `138 0013 8000`, `010-12345678`, and 11-digit Chinese
//!   mobile numbers (`13800138000`).
//!
//! A recognizer only starts where a token starts (not after a letter or digit, nor inside
//! `1.5`, `1,000`, `a/b` or `12:30`), and a match must end where the token ends.

use std::collections::BTreeSet;

/// What a [`Fact`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FactKind {
    /// An identifier: order, invoice or ticket number, SKU, UUID, hash, IP address.
    Id,
    /// A sum of money.
    Amount,
    /// A percentage.
    Percent,
    /// A date, a time of day, or both.
    Date,
    /// An email address.
    Email,
    /// A web address.
    Url,
    /// A number with a unit of measure, duration or count (`500 mg`, `3天`).
    Quantity,
    /// A telephone number.
    Phone,
}

/// One fact found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    /// What it is.
    pub kind: FactKind,
    /// The exact substring of the source, as written.
    pub text: String,
}

/// A summary after [`guard`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guarded {
    /// The summary, with the missing facts appended under [`KEY_FACTS`].
    pub text: String,
    /// The facts that were missing and have been appended, in order, each text once.
    pub restored: Vec<Fact>,
}

/// The heading of the list [`guard`] appends.
pub const KEY_FACTS: &str = "Key facts:";

/// A summary under this many characters is too short whatever it covers ([`too_short`]).
pub const SHORT_SUMMARY_CHARS: usize = 40;

/// [`too_short`] expects at least one character of summary per this many characters covered.
pub const COVERED_PER_SUMMARY_CHAR: usize = 50;

// ------------------------------------------------------------------------------------ extract

/// The facts of `text`, in order of first appearance, each text once (see the module header for
/// what counts).
pub fn extract(text: &str) -> Vec<Fact> {
    let s = Scan::new(text);
    let mut facts = Vec::new();
    let mut seen = BTreeSet::new();
    // Ids are not looked for before this index: the token there was already rejected.
    let mut id_from = 0;
    let mut i = 0;
    while i < s.len() {
        if s.clean(i) {
            let mut hit = s.recognize(i);
            if hit.is_none() && i >= id_from {
                if let Some(token) = s.token(i) {
                    if token.is_id() {
                        hit = Some((FactKind::Id, token.end));
                    } else {
                        id_from = token.end;
                    }
                }
            }
            if let Some((kind, end)) = hit {
                let end = end.max(i + 1);
                let found = s.slice(i, end);
                if !found.is_empty() && seen.insert(found) {
                    facts.push(Fact {
                        kind,
                        text: found.to_owned(),
                    });
                }
                i = end;
                continue;
            }
        }
        // Nothing starts here; nothing starts inside a run of letters and digits either.
        i += 1.max(s.run(i, |c| c.is_ascii_alphanumeric()));
    }
    facts
}

/// One character of the input: normalized (`c`), as written (`raw`), and its byte offset.
#[derive(Debug, Clone, Copy)]
struct Ch {
    c: char,
    raw: char,
    at: usize,
}

/// The input as characters, with the recognizers. Indices are character indices; reading past
/// the end gives `'\0'`, which no recognizer accepts.
struct Scan<'t> {
    text: &'t str,
    cs: Vec<Ch>,
}

/// Full-width digits, letters and the symbols facts use become ASCII; odd spaces become `' '`;
/// the full-width yen and pound signs and the minus sign become their usual forms. The
/// full-width comma and parentheses stay as they are (they are prose punctuation in Chinese).
fn normalize(c: char) -> char {
    match c {
        '\u{FF10}'..='\u{FF19}'
        | '\u{FF21}'..='\u{FF3A}'
        | '\u{FF41}'..='\u{FF5A}'
        | '＄'
        | '％'
        | '＃'
        | '＠'
        | '－'
        | '／'
        | '：'
        | '＋'
        | '．' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{3000}' | '\u{A0}' | '\u{2009}' | '\u{202F}' => ' ',
        '\u{FFE5}' => '¥',
        '\u{FFE1}' => '£',
        '\u{2212}' => '-',
        _ => c,
    }
}

const MONTHS: &str = "\
    January February March April May June July August September October November December Jan Feb \
    Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec";

const ORDINALS: &str = "st nd rd th";

const AM_PM: &str = "a.m. p.m. A.M. P.M. am pm AM PM";

/// Chinese parts of the day that may precede a time (`下午3点`).
const DAY_PARTS: &str = "上午 下午 中午 晚上 早上 早晨 凌晨 傍晚 夜里 今晚 明晚 今早 明早";

/// Units after a number, matched case-sensitively, longest first, ending a token.
const UNITS: &str = "\
    mmol/L mg/dL km/h m/s MB/s GB/s kbps Mbps Gbps kWh mAh kcal mmHg kHz MHz GHz KiB MiB GiB TiB \
    minutes minute mins min seconds second secs sec hours hour hrs hr h days day weeks week months \
    month years year ms µs μs ns kg g mg mcg µg μg lb lbs oz pounds kilograms grams km m cm mm nm \
    µm μm mi ft yd miles mile meters meter metres metre kilometers kilometres feet inches ml mL L \
    cl dl liters liter litres litre °C °F ° ℃ ℉ KB kB MB GB TB PB Hz W kW MW GW Wh V mV kV mph kph \
    px pt dpi fps rpm bpm cal kJ IU nights night guests adults people";

/// Chinese units and measure words after a number (no token end needed).
const CJK_UNITS: &str = "\
    个小时 个钟头 个星期 个工作日 个月 小时 钟头 分钟 秒钟 秒 工作日 星期 天 周 年 岁 毫克 微克 \
    千克 公斤 克 斤 吨 公里 千米 厘米 毫米 英里 英尺 英寸 米 平方米 平方公里 平米 亩 公顷 毫升 升 \
    摄氏度 华氏度 度 千卡 大卡 卡路里 千瓦时 千瓦 瓦 伏 毫安时 件 箱 盒 瓶 袋 包 台 套 份 张 片 粒 \
    支 间 晚 人 位";

/// Chinese magnitudes between a number and its unit or currency.
const CJK_MAGNITUDES: &str = "万亿 千万 百万 十万 万 亿 千 百";

/// The magnitudes that make an amount on their own (`3.5万`).
const CJK_BIG: &str = "万亿 千万 百万 十万 万 亿";

/// Magnitudes right after an amount with a currency prefix (`$5k`), ending a token.
const MAGNITUDES: &str = "bn mn MM k K M B m";

/// Magnitude words after a space (`$3 million`).
const MAGNITUDE_WORDS: &str = "thousand million billion trillion";

const CURRENCY_SYMBOLS: &str = "$€£¥₹₩₽₺₫₱฿₪₦₴₿";

const CURRENCY_CODES: &str = "\
    USD EUR GBP JPY CNY RMB HKD TWD NTD CAD AUD NZD CHF INR KRW SGD RUB BRL MXN SEK NOK DKK THB \
    BTC ETH USDT USDC";

const CURRENCY_WORDS: &str = "\
    dollars dollar euros euro yuan rupees rupee cents bucks yen pesos francs";

const CJK_CURRENCIES: &str = "\
    元 块钱 块 美元 欧元 英镑 日元 港元 港币 人民币 韩元 卢布 澳元 加元 新台币 台币 美金";

const CJK_CURRENCY_PREFIXES: &str = "人民币 港币";

/// Longest local part of an email address (RFC 5321).
const MAX_LOCAL: usize = 64;
/// Longest domain of an email address.
const MAX_DOMAIN: usize = 253;
/// Longest phone number, characters.
const MAX_PHONE: usize = 24;

/// A number: `1`, `1,299.00`, `-3.5`.
#[derive(Debug, Clone, Copy)]
struct Num {
    end: usize,
    /// Digits before any separator.
    int_len: usize,
    /// No sign, no thousands separator, no decimals.
    plain: bool,
}

/// A run of letters and digits joined by `-` `_` `/` `#` `.` (an Id candidate).
#[derive(Debug, Default)]
struct Token {
    end: usize,
    /// Starts with `#`.
    hash: bool,
    letters: usize,
    digits: usize,
    parts: usize,
    dotted: bool,
    /// Letter/digit changes between neighbouring characters (connectors skipped).
    turns: usize,
    /// Every letter is a hex letter of one case.
    hex: bool,
    /// Every letter is upper case.
    upper: bool,
    /// Two parts of exactly four digits (`2020-2024`).
    year_pair: bool,
    /// One part: digits then `s`, `st`, `nd`, `rd` or `th` (`1990s`, `2nd`).
    ordinal: bool,
    len: usize,
}

impl Token {
    fn is_id(&self) -> bool {
        if self.hash {
            return self.digits >= 2;
        }
        if self.letters == 0 {
            return if self.dotted {
                self.parts >= 4
            } else {
                self.digits >= 6 && !self.year_pair
            };
        }
        if self.ordinal {
            return false;
        }
        self.digits >= 4
            || (self.upper && self.letters >= 2 && self.digits >= 3)
            || (self.digits >= 2 && self.turns >= 3 && self.len >= 4)
            || (self.hex && self.parts == 1 && self.len >= 7 && self.digits >= 1)
    }
}

impl<'t> Scan<'t> {
    fn new(text: &'t str) -> Self {
        let cs = text
            .char_indices()
            .map(|(at, raw)| Ch {
                c: normalize(raw),
                raw,
                at,
            })
            .collect();
        Scan { text, cs }
    }

    fn len(&self) -> usize {
        self.cs.len()
    }

    fn c(&self, i: usize) -> char {
        self.cs.get(i).map_or('\0', |ch| ch.c)
    }

    fn raw(&self, i: usize) -> char {
        self.cs.get(i).map_or('\0', |ch| ch.raw)
    }

    fn digit(&self, i: usize) -> bool {
        self.c(i).is_ascii_digit()
    }

    fn alnum(&self, i: usize) -> bool {
        self.c(i).is_ascii_alphanumeric()
    }

    /// Characters from `i` on satisfying `f`.
    fn run(&self, i: usize, f: impl Fn(char) -> bool) -> usize {
        let mut j = i;
        while j < self.len() && f(self.c(j)) {
            j += 1;
        }
        j - i
    }

    fn digits(&self, i: usize) -> usize {
        self.run(i, |c| c.is_ascii_digit())
    }

    /// The value of `len` (at most 9) digits at `i`.
    fn int(&self, i: usize, len: usize) -> u32 {
        (i..i + len.min(9)).fold(0, |v, k| v * 10 + self.c(k).to_digit(10).unwrap_or(0))
    }

    /// The end of `s` if it is written at `i`.
    fn lit(&self, i: usize, s: &str) -> Option<usize> {
        let mut j = i;
        for want in s.chars() {
            if j >= self.len() || self.c(j) != want {
                return None;
            }
            j += 1;
        }
        Some(j)
    }

    /// The end of the longest of the space-separated `list` written at `i`.
    fn longest(&self, i: usize, list: &str) -> Option<usize> {
        let first = self.c(i);
        if first == ' ' || !list.contains(first) {
            return None; // the quick answer, most of the time
        }
        list.split(' ').filter_map(|s| self.lit(i, s)).max()
    }

    /// [`Scan::longest`], when it ends a token.
    fn word(&self, i: usize, list: &str) -> Option<usize> {
        self.longest(i, list).filter(|&e| !self.alnum(e))
    }

    fn space(&self, i: usize) -> Option<usize> {
        (self.c(i) == ' ').then_some(i + 1)
    }

    fn opt_space(&self, i: usize) -> usize {
        self.space(i).unwrap_or(i)
    }

    fn byte(&self, i: usize) -> usize {
        self.cs.get(i).map_or(self.text.len(), |ch| ch.at)
    }

    fn slice(&self, a: usize, b: usize) -> &'t str {
        self.text.get(self.byte(a)..self.byte(b)).unwrap_or("")
    }

    /// Whether a fact may start at `i`: not inside a token (`abc123`, `1.5`, `1,000`, `a/b`,
    /// `12:30`).
    fn clean(&self, i: usize) -> bool {
        if i == 0 || !self.alnum(i) {
            return true;
        }
        let before_prev = if i >= 2 { self.c(i - 2) } else { '\0' };
        match self.c(i - 1) {
            p if p.is_ascii_alphanumeric() => false,
            '.' | ',' | '_' | '/' | '\\' | '@' | '#' | '&' | '=' | '?' | '%' => {
                !before_prev.is_ascii_alphanumeric()
            }
            ':' => !before_prev.is_ascii_digit(),
            _ => true,
        }
    }

    /// Whether a match may end at `e`: the token ends there.
    fn end_ok(&self, e: usize) -> bool {
        if e == 0 {
            return false;
        }
        let last = self.c(e - 1);
        let next = self.c(e);
        if last.is_ascii_digit() {
            let glued = matches!(next, '.' | ',' | ':' | '/' | '_') && self.digit(e + 1);
            !(next.is_ascii_alphanumeric() || glued)
        } else if last.is_ascii_alphabetic() {
            !next.is_ascii_alphanumeric()
        } else {
            true
        }
    }

    fn ends(&self, e: usize) -> Option<usize> {
        self.end_ok(e).then_some(e)
    }

    /// Every recognizer but the Id one, in priority order.
    fn recognize(&self, i: usize) -> Option<(FactKind, usize)> {
        let with = |kind, end: Option<usize>| end.map(|e| (kind, e));
        with(FactKind::Url, self.url(i))
            .or_else(|| with(FactKind::Email, self.email(i)))
            .or_else(|| with(FactKind::Date, self.date(i)))
            .or_else(|| with(FactKind::Phone, self.phone(i)))
            .or_else(|| with(FactKind::Quantity, self.quantity(i)))
            .or_else(|| with(FactKind::Percent, self.percent(i)))
            .or_else(|| with(FactKind::Amount, self.amount(i)))
    }

    /// A number at `i` (with a leading minus sign when `signed` and the sign starts a token).
    fn number(&self, i: usize, signed: bool) -> Option<Num> {
        let mut j = i;
        let mut sign = false;
        if signed && self.c(j) == '-' && !(j > 0 && self.alnum(j - 1)) && self.digit(j + 1) {
            j += 1;
            sign = true;
        }
        let int_len = self.digits(j);
        if int_len == 0 {
            return None;
        }
        j += int_len;
        let mut grouped = false;
        if int_len <= 3 {
            while self.c(j) == ',' && self.digits(j + 1) == 3 {
                j += 4;
                grouped = true;
            }
        }
        let mut frac = false;
        if self.c(j) == '.' && self.digit(j + 1) {
            j += 1 + self.digits(j + 1);
            frac = true;
        }
        Some(Num {
            end: j,
            int_len,
            plain: !sign && !grouped && !frac,
        })
    }

    // ----------------------------------------------------------------------------- urls

    fn url(&self, i: usize) -> Option<usize> {
        let body = ["https://", "http://", "www."]
            .iter()
            .find_map(|p| self.lit_ascii_ci(i, p))?;
        let mut j = body;
        let (mut open, mut close) = (0usize, 0usize);
        while j < self.len() && url_char(self.raw(j)) {
            match self.raw(j) {
                '(' | '[' => open += 1,
                ')' | ']' => close += 1,
                _ => {}
            }
            j += 1;
        }
        while j > body {
            match self.raw(j - 1) {
                '.' | ',' | ';' | ':' | '!' | '?' | '\'' | '"' | '*' | '_' => {}
                ')' | ']' if close > open => close -= 1,
                _ => break,
            }
            j -= 1;
        }
        (body..j)
            .any(|k| self.raw(k).is_ascii_alphanumeric())
            .then_some(j)
    }

    /// `s` (ASCII) at `i`, ignoring ASCII case, in characters as written.
    fn lit_ascii_ci(&self, i: usize, s: &str) -> Option<usize> {
        let mut j = i;
        for want in s.chars() {
            if !self.raw(j).eq_ignore_ascii_case(&want) {
                return None;
            }
            j += 1;
        }
        Some(j)
    }

    // --------------------------------------------------------------------------- emails

    fn email(&self, i: usize) -> Option<usize> {
        let local = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '%' | '+' | '-');
        let mut j = i;
        while j - i <= MAX_LOCAL && local(self.raw(j)) {
            j += 1;
        }
        if j == i || self.raw(j) != '@' || self.raw(i) == '.' || self.raw(j - 1) == '.' {
            return None;
        }
        let domain = j + 1;
        let mut k = domain;
        let mut last_dot = None;
        while k - domain <= MAX_DOMAIN {
            let c = self.raw(k);
            if c.is_ascii_alphanumeric() || c == '-' {
                k += 1;
            } else if c == '.'
                && k > domain
                && self.raw(k - 1).is_ascii_alphanumeric()
                && self.raw(k + 1).is_ascii_alphanumeric()
            {
                last_dot = Some(k);
                k += 1;
            } else {
                break;
            }
        }
        let tld = last_dot? + 1;
        let tld_ok = k - tld >= 2 && (tld..k).all(|t| self.raw(t).is_ascii_alphabetic());
        (tld_ok && !self.raw(k).is_ascii_alphanumeric()).then_some(k)
    }

    // ---------------------------------------------------------------------------- dates

    fn date(&self, i: usize) -> Option<usize> {
        let c = self.c(i);
        if c.is_ascii_digit() {
            self.numeric_date(i)
                .or_else(|| self.day_month(i))
                .or_else(|| self.cjk_date(i))
                .or_else(|| self.clock(i, false))
                .or_else(|| self.cjk_clock(i, false))
        } else if c.is_ascii_uppercase() {
            self.month_date(i)
        } else {
            self.day_part_clock(i)
        }
    }

    /// `2024-03-15`, `2024/3/15`, `2024.3.15`, `2024-03`, `15.03.2024`, `3/15/24`, with an
    /// optional time.
    fn numeric_date(&self, i: usize) -> Option<usize> {
        let lead = self.digits(i);
        let sep = self.c(i + lead);
        if !matches!(sep, '-' | '/' | '.') {
            return None;
        }
        let m = i + lead + 1;
        let m_len = self.digits(m);
        if !(1..=2).contains(&m_len) {
            return None;
        }
        let after_m = m + m_len;
        if lead == 4 {
            if !(1..=12).contains(&self.int(m, m_len)) {
                return None;
            }
            let d = after_m + 1;
            let d_len = self.digits(d);
            if self.c(after_m) == sep
                && (1..=2).contains(&d_len)
                && (1..=31).contains(&self.int(d, d_len))
            {
                return self.ends(self.with_time(d + d_len, sep == '-'));
            }
            if sep != '.' && m_len == 2 && self.c(after_m) != sep {
                return self.ends(after_m);
            }
            return None;
        }
        if !(1..=2).contains(&lead) {
            return None;
        }
        let (a, b) = (self.int(i, lead), self.int(m, m_len));
        let valid = (1..=31).contains(&a) && (1..=31).contains(&b) && (a <= 12 || b <= 12);
        let y = after_m + 1;
        let y_len = self.digits(y);
        if valid && self.c(after_m) == sep && (y_len == 4 || (y_len == 2 && sep == '/')) {
            return self.ends(self.with_time(y + y_len, false));
        }
        None
    }

    /// `e`, extended by a time after `T` (ISO 8601, with a zone) or after a space.
    fn with_time(&self, e: usize, iso: bool) -> usize {
        if iso && self.c(e) == 'T' {
            if let Some(t) = self.clock(e + 1, true) {
                return t;
            }
        }
        if self.c(e) == ' ' {
            if let Some(t) = self.clock(e + 1, iso).or_else(|| self.cjk_time(e + 1)) {
                return t;
            }
        }
        e
    }

    /// `14:30`, `9:05:59.123`, `3pm`, `3:30 p.m.`; with `zone`, also `Z`, `+08:00`, `-0500`.
    fn clock(&self, i: usize, zone: bool) -> Option<usize> {
        let h_len = self.digits(i);
        if !(1..=2).contains(&h_len) {
            return None;
        }
        let hour = self.int(i, h_len);
        let mut j = i + h_len;
        let minutes = self.c(j) == ':' && self.digits(j + 1) == 2 && self.int(j + 1, 2) <= 59;
        if hour > 24 {
            return None;
        }
        if minutes {
            j += 3;
            if self.c(j) == ':' && self.digits(j + 1) == 2 && self.int(j + 1, 2) <= 60 {
                j += 3;
                if self.c(j) == '.' && self.digit(j + 1) {
                    j += 1 + self.digits(j + 1);
                }
            }
            if zone {
                if self.c(j) == 'Z' {
                    j += 1;
                } else if matches!(self.c(j), '+' | '-') {
                    match self.digits(j + 1) {
                        4 => j += 5,
                        2 if self.c(j + 3) == ':' && self.digits(j + 4) == 2 => j += 6,
                        2 => j += 3,
                        _ => {}
                    }
                }
            }
        }
        let suffix = self.opt_space(j);
        match self.longest(suffix, AM_PM) {
            Some(e) if (1..=12).contains(&hour) && !self.alnum(e) => Some(e),
            _ if minutes => self.ends(j),
            _ => None,
        }
    }

    /// `3点`, `3点半`, `15点30分`, `15时30分`, `8点钟`.
    /// `3点` alone only when `bare` (after a part of the day or a date): in prose it is as
    /// often "3 points" (`以下3点建议`).
    fn cjk_clock(&self, i: usize, bare: bool) -> Option<usize> {
        let h_len = self.digits(i);
        if !(1..=2).contains(&h_len) || self.int(i, h_len) > 24 {
            return None;
        }
        let j = i + h_len;
        if !matches!(self.c(j), '点' | '时') {
            return None;
        }
        let j = j + 1;
        if matches!(self.c(j), '半' | '钟') {
            return Some(j + 1);
        }
        let m_len = self.digits(j);
        if (1..=2).contains(&m_len) && self.int(j, m_len) <= 59 {
            let e = j + m_len;
            return if self.c(e) == '分' {
                Some(e + 1)
            } else {
                self.ends(e)
            };
        }
        bare.then_some(j)
    }

    /// `下午3点`, `上午10:30`.
    fn day_part_clock(&self, i: usize) -> Option<usize> {
        let j = self.opt_space(self.longest(i, DAY_PARTS)?);
        self.cjk_clock(j, true).or_else(|| self.clock(j, false))
    }

    /// A time after a Chinese date: `下午3点`, `15:30`, `3点`.
    fn cjk_time(&self, i: usize) -> Option<usize> {
        self.day_part_clock(i)
            .or_else(|| self.cjk_clock(i, true))
            .or_else(|| self.clock(i, false))
    }

    /// `2024年3月15日`, `2024年3月`, `3月15日`, `3月15号`, with an optional time.
    fn cjk_date(&self, i: usize) -> Option<usize> {
        let lead = self.digits(i);
        let mut m = i;
        if lead == 4 && self.c(i + 4) == '年' {
            m = i + 5;
        } else if lead > 2 {
            return None;
        }
        let m_len = self.digits(m);
        if !(1..=2).contains(&m_len)
            || !(1..=12).contains(&self.int(m, m_len))
            || self.c(m + m_len) != '月'
        {
            return None;
        }
        let d = m + m_len + 1;
        let d_len = self.digits(d);
        let mut e = if (1..=2).contains(&d_len) && (1..=31).contains(&self.int(d, d_len)) {
            match self.c(d + d_len) {
                '日' | '号' => d + d_len + 1,
                _ => self.ends(d + d_len)?,
            }
        } else if m > i {
            d // 2024年3月
        } else {
            return None; // 3月 alone
        };
        if let Some(t) = self.cjk_time(self.opt_space(e)) {
            e = t;
        }
        Some(e)
    }

    /// The end of a month name at `i`.
    fn month(&self, i: usize) -> Option<usize> {
        self.longest(i, MONTHS)
            .filter(|&e| !self.c(e).is_ascii_alphabetic())
    }

    /// After a month name ending at `e`: past an abbreviation's dot when a number follows.
    fn after_month(&self, e: usize) -> usize {
        if self.c(e) == '.' && self.c(e + 1) == ' ' && self.digit(e + 2) {
            e + 1
        } else {
            e
        }
    }

    /// `March 15, 2024`, `Mar. 15th`, `March 2024`, with an optional time after a year.
    fn month_date(&self, i: usize) -> Option<usize> {
        let j = self.space(self.after_month(self.month(i)?))?;
        let d_len = self.digits(j);
        if d_len == 4 {
            return self.ends(j + 4);
        }
        if !(1..=2).contains(&d_len) || !(1..=31).contains(&self.int(j, d_len)) {
            return None;
        }
        let mut k = j + d_len;
        if let Some(o) = self.word(k, ORDINALS) {
            k = o;
        }
        let year = if self.c(k) == ',' {
            self.opt_space(k + 1)
        } else if self.c(k) == ' ' {
            k + 1
        } else {
            k
        };
        if year > k && self.digits(year) == 4 && self.end_ok(year + 4) {
            return Some(self.with_time(year + 4, false));
        }
        self.ends(k)
    }

    /// `15 March 2024`, `15th Mar`, `1 May`.
    fn day_month(&self, i: usize) -> Option<usize> {
        let d_len = self.digits(i);
        if !(1..=2).contains(&d_len) || !(1..=31).contains(&self.int(i, d_len)) {
            return None;
        }
        let mut k = i + d_len;
        if let Some(o) = self.word(k, ORDINALS) {
            k = o;
        }
        let e = self.month(self.space(k)?)?;
        let year = self.space(self.after_month(e));
        match year {
            Some(y) if self.digits(y) == 4 && self.end_ok(y + 4) => Some(y + 4),
            _ => Some(e),
        }
    }

    // ---------------------------------------------------------------------------- phones

    fn phone(&self, i: usize) -> Option<usize> {
        let c = self.c(i);
        if c == '+' && !(i > 0 && self.alnum(i - 1)) {
            self.intl_phone(i)
        } else if c == '(' {
            self.paren_phone(i)
        } else if c.is_ascii_digit() {
            self.local_phone(i)
        } else {
            None
        }
    }

    /// `+86 138 0013 8000`, `+1 (555) 123-4567`, `+8613800138000`.
    fn intl_phone(&self, i: usize) -> Option<usize> {
        let first = self.digits(i + 1);
        if first == 0 || first > 15 {
            return None;
        }
        let mut total = first;
        let mut j = i + 1 + first;
        loop {
            let k = if matches!(self.c(j), ' ' | '-' | '.') {
                j + 1
            } else {
                j
            };
            let (end, n) = if self.c(k) == '(' {
                let n = self.digits(k + 1);
                if self.c(k + 1 + n) != ')' {
                    break;
                }
                (k + n + 2, n)
            } else {
                let n = self.digits(k);
                (k + n, n)
            };
            if !(2..=5).contains(&n) || total + n > 15 || end - i > MAX_PHONE {
                break;
            }
            total += n;
            j = end;
        }
        (8..=15)
            .contains(&total)
            .then_some(j)
            .filter(|&e| self.end_ok(e))
    }

    /// `(555) 123-4567`, `(010) 1234 5678`.
    fn paren_phone(&self, i: usize) -> Option<usize> {
        let area = self.digits(i + 1);
        if !(2..=4).contains(&area) || self.c(i + 1 + area) != ')' {
            return None;
        }
        let mut j = i + area + 2;
        if matches!(self.c(j), ' ' | '-') {
            j += 1;
        }
        let a = self.digits(j);
        if !(3..=4).contains(&a) || !matches!(self.c(j + a), '-' | ' ' | '.') {
            return None;
        }
        let k = j + a + 1;
        (self.digits(k) == 4)
            .then_some(k + 4)
            .filter(|&e| self.end_ok(e))
    }

    /// `555-123-4567`, `1-800-555-1234`, `138-0013-8000`, `010-12345678`, `555.123.4567`,
    /// `138 0013 8000`, `13800138000`.
    fn local_phone(&self, i: usize) -> Option<usize> {
        let first = self.digits(i);
        let sep = self.c(i + first);
        if first == 11 && self.c(i) == '1' && matches!(self.c(i + 1), '3'..='9') {
            return self.ends(i + 11);
        }
        if !matches!(sep, '-' | '.' | ' ') {
            return None;
        }
        let mut groups = [first, 0, 0, 0, 0];
        let mut count = 1;
        let mut j = i + first;
        while count < groups.len() && self.c(j) == sep && self.digit(j + 1) {
            let n = self.digits(j + 1);
            groups[count] = n;
            count += 1;
            j += 1 + n;
            if sep == ' ' && count == 3 {
                break;
            }
        }
        let zero = self.c(i) == '0';
        let shape = match (sep, &groups[..count]) {
            ('-', [3, 3, 4] | [3, 4, 4] | [1, 3, 3, 4]) => true,
            ('-', [3 | 4, 7 | 8]) => zero,
            ('.', [3, 3, 4]) => true,
            (' ', [3, 4, 4]) => self.c(i) == '1',
            _ => false,
        };
        (shape && !(sep != ' ' && self.c(j) == sep && self.digit(j + 1)))
            .then_some(j)
            .filter(|&e| self.end_ok(e))
    }

    // ------------------------------------------------------------ quantities, amounts

    /// A number and a unit: `500 mg`, `3.5kg`, `20°C`, `3天`, `3万公里`.
    fn quantity(&self, i: usize) -> Option<usize> {
        let n = self.number(i, true)?;
        for j in [n.end, self.space(n.end).unwrap_or(n.end)] {
            if let Some(e) = self.word(j, UNITS) {
                return Some(e);
            }
            if let Some(e) = self.longest(j, CJK_UNITS) {
                // `2024年` is a year; `3年级` a school grade, `90年代` a decade.
                let not_years = self.c(j) == '年'
                    && ((n.plain && n.int_len == 4) || matches!(self.c(e), '级' | '代'));
                return (!not_years).then_some(e);
            }
        }
        let m = self.longest(n.end, CJK_MAGNITUDES)?;
        self.longest(m, CJK_UNITS)
    }

    /// `12.5%`, `50 %`, `3 percent`, `3个百分点`.
    fn percent(&self, i: usize) -> Option<usize> {
        let n = self.number(i, true)?;
        let j = self.opt_space(n.end);
        if matches!(self.c(j), '%' | '‰') {
            return Some(j + 1);
        }
        self.word(j, "percent")
            .or_else(|| self.lit(n.end, "个百分点"))
    }

    fn amount(&self, i: usize) -> Option<usize> {
        let c = self.c(i);
        if CURRENCY_SYMBOLS.contains(c) {
            return self.amount_after(self.opt_space(i + 1));
        }
        if c.is_ascii_uppercase() {
            let caps = self.run(i, |c| c.is_ascii_uppercase());
            if (1..=2).contains(&caps) && self.c(i + caps) == '$' {
                return self.amount_after(self.opt_space(i + caps + 1)); // US$
            }
            let code = self
                .word(i, CURRENCY_CODES)
                .or_else(|| self.longest(i, CURRENCY_CODES).filter(|&e| self.digit(e)))?;
            let j = self.opt_space(code);
            return self.digit(j).then(|| self.amount_after(j)).flatten();
        }
        if let Some(p) = self.longest(i, CJK_CURRENCY_PREFIXES) {
            let n = self.number(self.opt_space(p), false)?;
            let e = self.longest(n.end, CJK_MAGNITUDES).unwrap_or(n.end);
            let with_yuan = self.lit(self.opt_space(e), "元");
            return with_yuan.or_else(|| self.ends(e));
        }
        let n = self.number(i, true)?;
        let (e, big) = match self.longest(n.end, CJK_MAGNITUDES) {
            Some(m) => (m, self.longest(n.end, CJK_BIG).is_some()),
            None => (
                self.space(n.end)
                    .and_then(|k| self.word(k, MAGNITUDE_WORDS))
                    .unwrap_or(n.end),
                false,
            ),
        };
        let j = self.opt_space(e);
        if let Some(c) = self.longest(j, CJK_CURRENCIES) {
            return Some(c);
        }
        if let Some(c) = self
            .word(j, CURRENCY_CODES)
            .or_else(|| self.word(j, CURRENCY_WORDS))
        {
            return Some(c);
        }
        big.then_some(e)
    }

    /// The number of an amount whose currency came first, with an optional magnitude and
    /// currency code (`$5k`, `$3 million`, `$45 USD`, `¥3万`).
    fn amount_after(&self, i: usize) -> Option<usize> {
        let n = self.number(i, false)?;
        let mut e = n.end;
        if let Some(m) = self
            .word(e, MAGNITUDES)
            .or_else(|| self.space(e).and_then(|k| self.word(k, MAGNITUDE_WORDS)))
        {
            e = m;
        } else if let Some(m) = self.longest(e, CJK_MAGNITUDES) {
            e = m;
        }
        if let Some(code) = self.space(e).and_then(|k| self.word(k, CURRENCY_CODES)) {
            e = code;
        }
        self.ends(e)
    }

    // -------------------------------------------------------------------------------- ids

    /// The letters-and-digits token at `i` (`None` when none starts there).
    fn token(&self, i: usize) -> Option<Token> {
        let mut t = Token {
            hash: self.c(i) == '#',
            hex: true,
            ..Token::default()
        };
        let start = i + usize::from(t.hash);
        if !self.alnum(start) || (t.hash && i > 0 && self.alnum(i - 1)) {
            return None;
        }
        let (mut lower, mut upper) = (false, false);
        let mut prev_digit = None;
        let mut part_lens = Vec::with_capacity(2);
        let mut j = start;
        loop {
            let part = j;
            while self.alnum(j) {
                let c = self.c(j);
                let is_digit = c.is_ascii_digit();
                if is_digit {
                    t.digits += 1;
                } else {
                    t.letters += 1;
                    lower |= c.is_ascii_lowercase();
                    upper |= c.is_ascii_uppercase();
                    t.hex &= c.is_ascii_hexdigit();
                }
                if prev_digit.is_some_and(|p| p != is_digit) {
                    t.turns += 1;
                }
                prev_digit = Some(is_digit);
                j += 1;
            }
            t.parts += 1;
            if part_lens.len() < 3 {
                part_lens.push((part, j - part));
            }
            let c = self.c(j);
            if matches!(c, '-' | '_' | '/' | '#' | '.') && self.alnum(j + 1) {
                t.dotted |= c == '.';
                j += 1;
            } else {
                break;
            }
        }
        t.end = j;
        t.len = j - i;
        t.hex &= !(lower && upper);
        t.upper = !lower;
        t.year_pair = t.parts == 2
            && part_lens
                .iter()
                .all(|&(p, n)| n == 4 && self.digits(p) == 4);
        if t.parts == 1 {
            let d = self.digits(start);
            t.ordinal = d > 0
                && ["s", "st", "nd", "rd", "th"]
                    .iter()
                    .any(|s| self.lit(start + d, s) == Some(j));
        }
        Some(t)
    }
}

/// Characters a URL may hold (as written): visible ASCII but for delimiters of prose.
fn url_char(c: char) -> bool {
    c.is_ascii_graphic() && !matches!(c, '<' | '>' | '"' | '`' | '{' | '}' | '|' | '\\' | '^')
}

// ------------------------------------------------------------------------------------ missing

/// The facts whose text does not occur in `summary`, in the order given.
///
/// Tolerated differences (nothing else): whitespace anywhere within one line (`8,000 元` is
/// found as `8,000元`, `+86 138…` as `+86138…`), full-width vs half-width letters, digits and
/// punctuation (`１２３` = `123`), hyphen and minus variants, and thousands separators (`$1,299`
/// is found as `$1299`; a comma only counts as one before exactly three digits, so `3,50` is not
/// `350`). Case matters. An occurrence counts only if no letter or digit is glued to an end of
/// the fact where it has one (`ORD-1` is not in `ORD-12`, `45 USD` not in `1.45 USD`, `5°C` not
/// in `-5°C`), and never across a line break.
pub fn missing<'a>(facts: &'a [Fact], summary: &str) -> Vec<&'a Fact> {
    let hay = Folded::new(summary);
    facts
        .iter()
        .filter(|f| !hay.holds(&Folded::new(&f.text).text))
        .collect()
}

/// A text with the tolerated differences folded away: whitespace is dropped (remembered as a
/// gap before the next character), line breaks become one `'\n'`, separators of thousands are
/// dropped, full-width forms and hyphen variants become ASCII.
struct Folded {
    text: String,
    /// Per byte of `text`: whitespace came right before this character.
    gap: Vec<bool>,
}

fn fold_char(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{FFE0}' => '¢',
        '\u{FFE1}' => '£',
        '\u{FFE5}' => '¥',
        '\u{FFE6}' => '₩',
        '\u{2010}'..='\u{2013}' | '\u{2212}' | '\u{FE63}' => '-',
        _ => c,
    }
}

fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

fn is_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200B}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

impl Folded {
    fn new(s: &str) -> Self {
        let chars: Vec<char> = s.chars().map(fold_char).collect();
        let digit = |k: usize| chars.get(k).is_some_and(char::is_ascii_digit);
        let mut text = String::with_capacity(s.len());
        let mut gap = Vec::with_capacity(s.len());
        let mut pending = false;
        for (k, &c) in chars.iter().enumerate() {
            if is_line_break(c) {
                if !text.ends_with('\n') {
                    text.push('\n');
                    gap.push(pending);
                }
                pending = false;
                continue;
            }
            if is_space(c) {
                pending = true;
                continue;
            }
            let thousands =
                c == ',' && k > 0 && digit(k - 1) && (1..=3).all(|d| digit(k + d)) && !digit(k + 4);
            if thousands {
                continue;
            }
            text.push(c);
            gap.resize(text.len(), false);
            gap[text.len() - c.len_utf8()] = pending;
            pending = false;
        }
        Folded { text, gap }
    }

    fn before(&self, b: usize) -> Option<(usize, char)> {
        let c = self.text.get(..b)?.chars().next_back()?;
        Some((b - c.len_utf8(), c))
    }

    /// The character right before byte `b`, unless whitespace or the start separates them.
    fn glued_before(&self, b: usize) -> Option<(usize, char)> {
        if self.gap.get(b).copied().unwrap_or(true) {
            return None;
        }
        self.before(b)
    }

    /// The character at byte `b` and the next one, if no whitespace separates them from
    /// what comes before.
    fn glued_at(&self, b: usize) -> Option<char> {
        if self.gap.get(b).copied().unwrap_or(true) {
            return None;
        }
        self.text.get(b..)?.chars().next()
    }

    /// Whether the folded `needle` occurs with clean ends.
    fn holds(&self, needle: &str) -> bool {
        let (Some(first), Some(last)) = (needle.chars().next(), needle.chars().next_back()) else {
            return true;
        };
        let mut from = 0;
        while let Some(off) = self.text.get(from..).and_then(|h| h.find(needle)) {
            let start = from + off;
            let end = start + needle.len();
            if self.left_clean(start, first) && self.right_clean(end, last) {
                return true;
            }
            from = start + first.len_utf8();
        }
        false
    }

    fn left_clean(&self, start: usize, first: char) -> bool {
        let Some((p_at, p)) = self.glued_before(start) else {
            return true;
        };
        if !first.is_ascii_alphanumeric() {
            return true;
        }
        if p.is_ascii_alphanumeric() {
            return false;
        }
        if !first.is_ascii_digit() {
            return true;
        }
        let pp = self.glued_before(p_at).map(|(_, c)| c);
        match p {
            '.' | ',' => !pp.is_some_and(|c| c.is_ascii_digit()),
            '-' => pp.is_some_and(|c| c.is_ascii_alphanumeric()), // a minus sign, not a range
            _ => true,
        }
    }

    fn right_clean(&self, end: usize, last: char) -> bool {
        let Some(n) = self.glued_at(end) else {
            return true;
        };
        if !last.is_ascii_alphanumeric() {
            return true;
        }
        if n.is_ascii_alphanumeric() {
            return false;
        }
        if !last.is_ascii_digit() || !matches!(n, '.' | ',') {
            return true;
        }
        let after = end + n.len_utf8();
        !self.glued_at(after).is_some_and(|c| c.is_ascii_digit())
    }
}

// -------------------------------------------------------------------------------------- guard

/// `summary` with every fact it lost appended, verbatim, one `- <text>` line each, under a
/// [`KEY_FACTS`] heading after a blank line — or at the end of the summary's own key-facts list
/// when it has one (a line `Key facts:`, in any ASCII case, with or without `#` or `**`; the
/// last such list). Unchanged when nothing is missing. Facts given twice are restored once.
///
/// [`extract`] never yields a fact with a line break; a hand-made one is written as it is.
pub fn guard(summary: &str, facts: &[Fact]) -> Guarded {
    let mut seen = BTreeSet::new();
    let restored: Vec<Fact> = missing(facts, summary)
        .into_iter()
        .filter(|f| seen.insert(f.text.as_str()))
        .cloned()
        .collect();
    if restored.is_empty() {
        return Guarded {
            text: summary.to_owned(),
            restored,
        };
    }
    let items: Vec<String> = restored.iter().map(|f| format!("- {}", f.text)).collect();
    let text = match list_end(summary) {
        Some(at) if at < summary.len() => {
            let mut text = summary[..at].to_owned();
            for item in &items {
                text.push_str(item);
                text.push('\n');
            }
            text.push_str(&summary[at..]);
            text
        }
        Some(_) => {
            let mut text = summary.to_owned();
            let newline_at_end = text.ends_with('\n');
            if !newline_at_end {
                text.push('\n');
            }
            text.push_str(&items.join("\n"));
            if newline_at_end {
                text.push('\n');
            }
            text
        }
        None => {
            let body = summary.trim_end();
            let list = format!("{KEY_FACTS}\n{}", items.join("\n"));
            if body.is_empty() {
                list
            } else {
                format!("{body}\n\n{list}")
            }
        }
    };
    Guarded { text, restored }
}

/// Whether `line` is a key-facts heading (`Key facts:`, `## Key facts`, `**Key facts:**`).
fn is_key_facts_heading(line: &str) -> bool {
    let t: String = line
        .trim()
        .trim_start_matches('#')
        .chars()
        .filter(|&c| c != '*')
        .collect();
    let t = t.trim();
    let t = t
        .strip_suffix(':')
        .or_else(|| t.strip_suffix('：'))
        .unwrap_or(t);
    t.trim_end().eq_ignore_ascii_case("key facts")
}

fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    if ["- ", "* ", "+ ", "• "].iter().any(|m| t.starts_with(m)) {
        return true;
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && matches!(t.as_bytes().get(digits), Some(b'.' | b')'))
}

/// The byte offset just after the last item of the summary's last key-facts list (just after
/// its heading when it has no item), or `None` when there is no such list.
fn list_end(summary: &str) -> Option<usize> {
    let mut heading = None;
    let mut at = 0;
    for line in summary.split_inclusive('\n') {
        at += line.len();
        if is_key_facts_heading(line) {
            heading = Some(at);
        }
    }
    let start = heading?;
    let mut end = start;
    let mut at = start;
    for line in summary[start..].split_inclusive('\n') {
        at += line.len();
        if is_list_item(line) {
            end = at;
        } else if !line.trim().is_empty() {
            break;
        }
    }
    Some(end)
}

// ---------------------------------------------------------------------------------- too_short

/// Whether `summary` is empty or suspiciously short for the `covered_chars` characters of
/// conversation it stands for: its weight is under `min(SHORT_SUMMARY_CHARS, covered_chars /
/// COVERED_PER_SUMMARY_CHAR)`, where weight counts characters other than whitespace, a CJK or
/// other wide character as two (Chinese says in one character what English says in two or
/// three). So a few short turns may have a one-line summary, and 2,000 characters covered ask
/// for at least 40 characters (or 20 Chinese ones), whatever the length covered.
pub fn too_short(summary: &str, covered_chars: usize) -> bool {
    let weight: usize = summary
        .chars()
        .filter(|&c| !is_space(c) && !is_line_break(c))
        .map(|c| if is_wide(c) { 2 } else { 1 })
        .sum();
    weight == 0 || weight < SHORT_SUMMARY_CHARS.min(covered_chars / COVERED_PER_SUMMARY_CHAR)
}

/// CJK ideographs, kana, hangul and full-width forms.
fn is_wide(c: char) -> bool {
    matches!(
        c,
        '\u{1100}'..='\u{115F}'
            | '\u{2E80}'..='\u{A4CF}'
            | '\u{AC00}'..='\u{D7A3}'
            | '\u{F900}'..='\u{FAFF}'
            | '\u{FE30}'..='\u{FE4F}'
            | '\u{FF00}'..='\u{FF60}'
            | '\u{FFE0}'..='\u{FFE6}'
            | '\u{20000}'..='\u{3FFFD}'
    )
}

#[cfg(test)]
mod tests {
    use super::FactKind::*;
    use super::*;
    use proptest::prelude::*;

    // ---------------------------------------------------------------------------- helpers

    /// Extract from `input` and compare with `expected` (kind and exact text, in order).
    #[track_caller]
    fn check(input: &str, expected: &[(FactKind, &str)]) {
        let got: Vec<(FactKind, String)> = extract(input)
            .into_iter()
            .map(|f| (f.kind, f.text))
            .collect();
        let expected: Vec<(FactKind, String)> =
            expected.iter().map(|&(k, t)| (k, t.to_owned())).collect();
        assert_eq!(got, expected, "input: {input:?}");
    }

    fn facts(list: &[(FactKind, &str)]) -> Vec<Fact> {
        list.iter()
            .map(|&(kind, text)| Fact {
                kind,
                text: text.to_owned(),
            })
            .collect()
    }

    /// Texts of the facts of `list` that [`missing`] reports for `summary`.
    #[track_caller]
    fn check_missing(list: &[&str], summary: &str, expected: &[&str]) {
        let given = facts(&list.iter().map(|t| (Id, *t)).collect::<Vec<_>>());
        let got: Vec<&str> = missing(&given, summary)
            .iter()
            .map(|f| f.text.as_str())
            .collect();
        assert_eq!(got, expected, "summary: {summary:?}");
    }

    #[track_caller]
    fn check_guard(summary: &str, list: &[&str], expected: &str) {
        let given = facts(&list.iter().map(|t| (Id, *t)).collect::<Vec<_>>());
        let guarded = guard(summary, &given);
        assert_eq!(guarded.text, expected, "summary: {summary:?}");
        let again = guard(&guarded.text, &given);
        assert_eq!(again.text, guarded.text, "guard is idempotent");
        assert!(again.restored.is_empty());
    }

    // ---------------------------------------------------------------------------- extract

    #[test]
    fn ids() {
        check("Order PRE202601001 shipped", &[(Id, "PRE202601001")]);
        check("ref ORD-2024-00042.", &[(Id, "ORD-2024-00042")]);
        check("ticket #4521, and #42", &[(Id, "#4521"), (Id, "#42")]);
        check("订单号 20240315001", &[(Id, "20240315001")]);
        check("订单号：PRE202601001，谢谢", &[(Id, "PRE202601001")]);
        check("订单#4521已发货", &[(Id, "#4521")]);
        check("invoice INV/2023/0042", &[(Id, "INV/2023/0042")]);
        check(
            "id 550e8400-e29b-41d4-a716-446655440000 ok",
            &[(Id, "550e8400-e29b-41d4-a716-446655440000")],
        );
        check("commit a3f9c21 fixed it", &[(Id, "a3f9c21")]);
        check("commit deadbe1f", &[(Id, "deadbe1f")]);
        check("SKU A12-B7 in stock", &[(Id, "A12-B7")]);
        check("code 123456", &[(Id, "123456")]);
        check("ref 123-456", &[(Id, "123-456")]);
        check("host 192.168.1.1 down", &[(Id, "192.168.1.1")]);
        check("Issue#4521", &[(Id, "Issue#4521")]);
        check("GPU RTX4090", &[(Id, "RTX4090")]);
        check("flight CA925, seat 12A", &[(Id, "CA925")]);
        check("error E0502", &[(Id, "E0502")]);
        check("（ORD-77-1234）", &[(Id, "ORD-77-1234")]);
        check(
            "订单号：２０２４０３１５００１",
            &[(Id, "２０２４０３１５００１")],
        );
        check("a1b2c3 x", &[(Id, "a1b2c3")]);
        // Accepted false positives: a word joined to four or more digits.
        check("ISO-8601", &[(Id, "ISO-8601")]);
        check("x86_64", &[(Id, "x86_64")]);
    }

    #[test]
    fn not_ids() {
        for text in [
            "I have 3 cats",
            "version 2",
            "in 2024 we moved",
            "2024年",
            "from 2020-2024",
            "the 1990s",
            "the 2nd time",
            "COVID-19 cases",
            "GPT-4o and gpt-4",
            "sha256 and base64",
            "v1.2.3",
            "pi is 3.14159265",
            "i18n k8s B2B H2O",
            "Windows10 iPhone15",
            "H264 A380 MP3 UTF-16",
            "1/2 or 3/4",
            "C#10",
            "#1 priority",
            "12345",
            "Cafe123",
            "#hashtag",
            "",
            "   ",
            "数字一二三",
        ] {
            check(text, &[]);
        }
    }

    #[test]
    fn amounts() {
        check("total $1,299.00 today", &[(Amount, "$1,299.00")]);
        check(
            "USD 45 or 45 USD",
            &[(Amount, "USD 45"), (Amount, "45 USD")],
        );
        check("€3.50.", &[(Amount, "€3.50")]);
        check("¥8,000", &[(Amount, "¥8,000")]);
        check("￥8,000", &[(Amount, "￥8,000")]);
        check("8000元", &[(Amount, "8000元")]);
        check("8,000 元", &[(Amount, "8,000 元")]);
        check("预算3.5万元左右", &[(Amount, "3.5万元")]);
        check("3.5万", &[(Amount, "3.5万")]);
        check("估值1.2亿", &[(Amount, "1.2亿")]);
        check("人民币500元", &[(Amount, "人民币500元")]);
        check("人民币 500", &[(Amount, "人民币 500")]);
        check(
            "RMB 300 or RMB300",
            &[(Amount, "RMB 300"), (Amount, "RMB300")],
        );
        check("£20 and ₹500", &[(Amount, "£20"), (Amount, "₹500")]);
        check(
            "US$1,299 and HK$50",
            &[(Amount, "US$1,299"), (Amount, "HK$50")],
        );
        check(
            "raised $5k, then $1.2M",
            &[(Amount, "$5k"), (Amount, "$1.2M")],
        );
        check("$3 million", &[(Amount, "$3 million")]);
        check("3 million dollars", &[(Amount, "3 million dollars")]);
        check("$45 USD", &[(Amount, "$45 USD")]);
        check("50块钱", &[(Amount, "50块钱")]);
        check("500美元", &[(Amount, "500美元")]);
        check("退款-500元", &[(Amount, "-500元")]);
        check("$ 5", &[(Amount, "$ 5")]);
        check("$5x and $", &[]);
        check("5k", &[]);
    }

    #[test]
    fn percents() {
        check("rate 12.5% now", &[(Percent, "12.5%")]);
        check("50 % off", &[(Percent, "50 %")]);
        check("增长１２％", &[(Percent, "１２％")]);
        check("3 percent", &[(Percent, "3 percent")]);
        check("上涨3个百分点", &[(Percent, "3个百分点")]);
        check("-2.5%", &[(Percent, "-2.5%")]);
    }

    #[test]
    fn dates() {
        check("on 2024-03-15.", &[(Date, "2024-03-15")]);
        check("2024/3/15", &[(Date, "2024/3/15")]);
        check("2024.3.15", &[(Date, "2024.3.15")]);
        check("15.03.2024", &[(Date, "15.03.2024")]);
        check("3/15/24", &[(Date, "3/15/24")]);
        check("due 2024-03", &[(Date, "2024-03")]);
        check("March 15, 2024 and", &[(Date, "March 15, 2024")]);
        check("March 15 2024", &[(Date, "March 15 2024")]);
        check("15 March 2024", &[(Date, "15 March 2024")]);
        check(
            "Mar 15 then Mar. 16",
            &[(Date, "Mar 15"), (Date, "Mar. 16")],
        );
        check("March 15th, ok", &[(Date, "March 15th")]);
        check("15th March", &[(Date, "15th March")]);
        check("in March 2024", &[(Date, "March 2024")]);
        check("2024年3月15日", &[(Date, "2024年3月15日")]);
        check("2024年3月", &[(Date, "2024年3月")]);
        check("3月15日见", &[(Date, "3月15日")]);
        check("3月15号", &[(Date, "3月15号")]);
        check("２０２４年３月１５日", &[(Date, "２０２４年３月１５日")]);
        check("下午3点开会", &[(Date, "下午3点")]);
        check("晚上8点半", &[(Date, "晚上8点半")]);
        check("15点30分", &[(Date, "15点30分")]);
        check("8点钟，3点半", &[(Date, "8点钟"), (Date, "3点半")]);
        check("3月15日3点", &[(Date, "3月15日3点")]);
        check("上午10:30", &[(Date, "上午10:30")]);
        check("2024年3月15日下午3点", &[(Date, "2024年3月15日下午3点")]);
        check("at 14:30.", &[(Date, "14:30")]);
        check("10:30-11:30", &[(Date, "10:30"), (Date, "11:30")]);
        check(
            "3pm or 3 PM or 3:30 p.m.",
            &[(Date, "3pm"), (Date, "3 PM"), (Date, "3:30 p.m.")],
        );
        check("2024-03-15T14:30:00Z", &[(Date, "2024-03-15T14:30:00Z")]);
        check(
            "2024-03-15T14:30:00.123+08:00 x",
            &[(Date, "2024-03-15T14:30:00.123+08:00")],
        );
        check("2024-03-15 14:30", &[(Date, "2024-03-15 14:30")]);
        check("时间：14：30", &[(Date, "14：30")]);
    }

    #[test]
    fn not_dates() {
        for text in [
            "in March",
            "march 5",
            "May I ask",
            "16:9 screen",
            "25:00",
            "1.2.34",
            "3月",
            "15日",
            "I am 30",
            "以下3点建议",
            "3点",
            "3 amps",
        ] {
            check(text, &[]);
        }
        check("2024-13-45", &[(Id, "2024-13-45")]); // not a date: month 13
    }

    #[test]
    fn emails_and_urls() {
        check(
            "mail john.doe+x@example.co.uk.",
            &[(Email, "john.doe+x@example.co.uk")],
        );
        check("(jane@example.com)", &[(Email, "jane@example.com")]);
        check("mailto:x@y.com", &[(Email, "x@y.com")]);
        check("联系a@b.cn，谢谢", &[(Email, "a@b.cn")]);
        check("user@localhost a@b.c", &[]);
        check(
            "see https://example.com/a?b=1&c=2.",
            &[(Url, "https://example.com/a?b=1&c=2")],
        );
        check(
            "(http://x.org/wiki/A_(b))",
            &[(Url, "http://x.org/wiki/A_(b)")],
        );
        check("[doc](https://x.io/p)", &[(Url, "https://x.io/p")]);
        check("访问https://a.com/x。然后", &[(Url, "https://a.com/x")]);
        check("访问 www.example.com，谢谢", &[(Url, "www.example.com")]);
        check("HTTPS://A.COM, ok", &[(Url, "HTTPS://A.COM")]);
        check("**https://x.dev/**", &[(Url, "https://x.dev/")]);
        check("https:// and www. alone", &[]);
    }

    #[test]
    fn quantities() {
        check("take 500 mg daily", &[(Quantity, "500 mg")]);
        check("3.5kg", &[(Quantity, "3.5kg")]);
        check("10 km", &[(Quantity, "10 km")]);
        check(
            "20°C or 20 °C or 20℃",
            &[(Quantity, "20°C"), (Quantity, "20 °C"), (Quantity, "20℃")],
        );
        check("-5°C", &[(Quantity, "-5°C")]);
        check("10-20°C", &[(Quantity, "20°C")]);
        check("100 GB", &[(Quantity, "100 GB")]);
        check("2 hours ago", &[(Quantity, "2 hours")]);
        check("2 小时", &[(Quantity, "2 小时")]);
        check("3天后", &[(Quantity, "3天")]);
        check("5公斤", &[(Quantity, "5公斤")]);
        check("10 件", &[(Quantity, "10 件")]);
        check("200ms", &[(Quantity, "200ms")]);
        check("3个月", &[(Quantity, "3个月")]);
        check("3万公里", &[(Quantity, "3万公里")]);
        check("3千米", &[(Quantity, "3千米")]);
        check("预订3人2晚", &[(Quantity, "3人"), (Quantity, "2晚")]);
        check("1,000 km", &[(Quantity, "1,000 km")]);
        check("5 mg/dL", &[(Quantity, "5 mg/dL")]);
        check("3年", &[(Quantity, "3年")]);
        check("3年级，90年代", &[]);
        check("5G network, 4K video, 5 mind", &[]);
        check("5  mg", &[]);
    }

    #[test]
    fn phones() {
        check(
            "call +86 138 0013 8000 now",
            &[(Phone, "+86 138 0013 8000")],
        );
        check("+1 (555) 123-4567", &[(Phone, "+1 (555) 123-4567")]);
        check("+44 20 7946 0958", &[(Phone, "+44 20 7946 0958")]);
        check("+8613800138000", &[(Phone, "+8613800138000")]);
        check("(555) 123-4567", &[(Phone, "(555) 123-4567")]);
        check("138-0013-8000", &[(Phone, "138-0013-8000")]);
        check("138 0013 8000 3 cats", &[(Phone, "138 0013 8000")]);
        check("555-123-4567", &[(Phone, "555-123-4567")]);
        check("555.123.4567", &[(Phone, "555.123.4567")]);
        check("1-800-555-1234", &[(Phone, "1-800-555-1234")]);
        check("010-12345678", &[(Phone, "010-12345678")]);
        check("手机13800138000", &[(Phone, "13800138000")]);
        check("100 200 3000", &[]);
        check("+1 5", &[]);
    }

    #[test]
    fn mixed_order_and_dedup() {
        check(
            "ORD-2024-00042 for $1,299.00 ships 2024-03-15; ORD-2024-00042 again, mail a@b.co",
            &[
                (Id, "ORD-2024-00042"),
                (Amount, "$1,299.00"),
                (Date, "2024-03-15"),
                (Email, "a@b.co"),
            ],
        );
        check(
            "我在3月15日下单，订单号PRE202601001，金额8,000元，预计3天到货，电话138-0013-8000。",
            &[
                (Date, "3月15日"),
                (Id, "PRE202601001"),
                (Amount, "8,000元"),
                (Quantity, "3天"),
                (Phone, "138-0013-8000"),
            ],
        );
        check("emoji 🎉$5🎉 ok", &[(Amount, "$5")]);
    }

    /// An empty entry would match everywhere.
    #[test]
    fn word_lists_have_no_empty_entry() {
        for list in [
            MONTHS,
            ORDINALS,
            AM_PM,
            DAY_PARTS,
            UNITS,
            CJK_UNITS,
            CJK_MAGNITUDES,
            CJK_BIG,
            MAGNITUDES,
            MAGNITUDE_WORDS,
            CURRENCY_CODES,
            CURRENCY_WORDS,
            CJK_CURRENCIES,
            CJK_CURRENCY_PREFIXES,
        ] {
            assert!(list.split(' ').all(|w| !w.is_empty()), "{list:?}");
        }
    }

    // ---------------------------------------------------------------------------- missing

    #[test]
    fn missing_cases() {
        check_missing(&["ORD-2024-00042"], "Order ORD-2024-00042 shipped.", &[]);
        check_missing(&["ORD-2024-00042"], "Order shipped.", &["ORD-2024-00042"]);
        check_missing(&["ORD-1"], "ORD-12", &["ORD-1"]);
        check_missing(&["ORD-1"], "XORD-1", &["ORD-1"]);
        check_missing(&["ORD-1"], "ORD-1 2", &[]);
        check_missing(&["$1,299"], "paid $1299.", &[]);
        check_missing(&["$1299"], "paid $1,299.", &[]);
        check_missing(&["$1,299"], "paid $1,299.50", &["$1,299"]);
        check_missing(&["$1,299"], "paid $1,2990", &["$1,299"]);
        check_missing(&["3,50 €"], "350 €", &["3,50 €"]);
        check_missing(&["45 USD"], "1.45 USD", &["45 USD"]);
        check_missing(&["45 USD"], "45USD", &[]);
        check_missing(&["8,000 元"], "共8000元", &[]);
        check_missing(&["123"], "１２３", &[]);
        check_missing(&["２０２４年３月"], "2024年3月", &[]);
        check_missing(&["+86 138 0013 8000"], "+8613800138000", &[]);
        check_missing(
            &["+86 138 0013 8000"],
            "8613800138000",
            &["+86 138 0013 8000"],
        );
        check_missing(&["3天"], "13天", &["3天"]);
        check_missing(&["3天"], "3天内", &[]);
        check_missing(&["5°C"], "-5°C", &["5°C"]);
        check_missing(&["5°C"], "温度-5°C", &["5°C"]);
        check_missing(&["20°C"], "10-20°C", &[]);
        check_missing(&["Mar 15"], "Mar 15th", &["Mar 15"]);
        check_missing(&["ord-1"], "ORD-1", &["ord-1"]);
        check_missing(&["2024-03-15"], "2024–03–15", &[]);
        check_missing(&["March 15, 2024"], "March 15,\n2024", &["March 15, 2024"]);
        check_missing(&["a3f9c21"], "a3f9c21", &[]);
        check_missing(&["12"], "1 2", &[]); // whitespace is ignored within a line
        check_missing(&["12"], "1\n2", &["12"]);
        check_missing(&["12"], "x 1212 12", &[]);
        check_missing(&["", " "], "", &[]);
        check_missing(&["A", "B"], "B", &["A"]);
    }

    // ------------------------------------------------------------------------------ guard

    #[test]
    fn guard_cases() {
        check_guard("All done.", &["ORD-1"], "All done.\n\nKey facts:\n- ORD-1");
        check_guard(
            "All done.\n\n",
            &["a", "b"],
            "All done.\n\nKey facts:\n- a\n- b",
        );
        check_guard("ORD-1 paid.", &["ORD-1"], "ORD-1 paid.");
        check_guard("", &["x"], "Key facts:\n- x");
        check_guard("  \n", &["x"], "Key facts:\n- x");
        check_guard("Done.", &["x", "x"], "Done.\n\nKey facts:\n- x");
        check_guard(
            "Summary.\n\nKey facts:\n- a\n- b\n",
            &["a", "c"],
            "Summary.\n\nKey facts:\n- a\n- b\n- c\n",
        );
        check_guard(
            "Summary.\n\nKey facts:\n- a",
            &["c"],
            "Summary.\n\nKey facts:\n- a\n- c",
        );
        check_guard(
            "## Key facts\n- a\n\nThen more prose.",
            &["c"],
            "## Key facts\n- a\n- c\n\nThen more prose.",
        );
        check_guard(
            "**Key facts:**\n\n- a\n\n- b\nTail",
            &["c"],
            "**Key facts:**\n\n- a\n\n- b\n- c\nTail",
        );
        check_guard("Key facts:", &["c"], "Key facts:\n- c");
        check_guard("key facts:\nprose", &["c"], "key facts:\n- c\nprose");
        check_guard(
            "Key facts:\n1. a\n2) b\n",
            &["c"],
            "Key facts:\n1. a\n2) b\n- c\n",
        );
    }

    #[test]
    fn guard_reports_what_it_restored() {
        let given = extract("Order ORD-2024-00042 for $1,299.00 on 2024-03-15");
        let guarded = guard("Ordered on 2024-03-15 for $1299.00.", &given);
        let texts: Vec<&str> = guarded.restored.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(texts, ["ORD-2024-00042"]);
        assert!(guarded.text.ends_with("\n\nKey facts:\n- ORD-2024-00042"));
    }

    // -------------------------------------------------------------------------- too_short

    #[test]
    fn too_short_cases() {
        let cases: &[(&str, usize, bool)] = &[
            ("", 0, true),
            ("  \n\t", 10, true),
            ("ok", 0, false),
            ("ok", 100, false),
            ("ok", 150, true),
            ("The user asked about X.", 500, false),
            ("The user asked about X.", 2000, true),
            (&"a".repeat(40), 1_000_000, false),
            (&"a".repeat(39), 1_000_000, true),
            (&"订".repeat(20), 1_000_000, false),
            (&"订".repeat(19), 1_000_000, true),
            ("a b c d e f g h i j k l m n o p q r s t", 2000, true),
        ];
        for &(summary, covered, expected) in cases {
            assert_eq!(
                too_short(summary, covered),
                expected,
                "{summary:?} covering {covered}"
            );
        }
    }

    // ---------------------------------------------------------------------- linear time

    /// Inputs built to make a backtracking scanner quadratic; each must finish at once.
    #[test]
    fn pathological_inputs_are_linear() {
        let n = 100_000;
        for unit in [
            "1-", "1,", "1.", "a-", "a.", "1 ", "$", "+1 ", "a@", "a-1", "#1", "(1", "1:", "12:",
            "2024-", "ab1_", "http://", "www.", "年", "3月", "下午", "-", "1/", "a1b2-", "US$",
        ] {
            let text = unit.repeat(n / unit.len());
            for fact in extract(&text) {
                assert!(text.contains(&fact.text));
            }
        }
        let long = "x".repeat(n);
        let facts = vec![
            Fact {
                kind: Id,
                text: "xx".repeat(10),
            };
            10
        ];
        assert_eq!(missing(&facts, &long).len(), 10);
    }

    // ------------------------------------------------------------------------- properties

    /// Text fragments mixing facts, near-facts and filler, English and Chinese.
    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "ORD-2024-00042",
                "$1,299.00",
                "8,000 元",
                "3.5万",
                "2024-03-15",
                "3月15日",
                "下午3点",
                "14:30",
                "a@b.co",
                "https://x.io/a)",
                "+86 138 0013 8000",
                "138-0013-8000",
                "500 mg",
                "3天",
                "12.5%",
                "#4521",
                "PRE202601001",
                "March 15, 2024",
                "１２３",
                "－",
                "，",
                "。",
                " ",
                "\n",
                "Key facts:",
                "- ",
                "1,",
                "12",
                ".",
                "-",
                "🎉",
                "é",
                "\u{0}",
                "\r\n",
                "人民币",
                "USD",
                "\u{3000}",
                "：",
                "(",
                ")",
                "#",
            ])
            .prop_map(str::to_owned),
            "[0-9a-zA-Z .,:/#@$%+()-]{0,6}",
            "[\u{4e00}-\u{4e20}０-９ａ-ｚ　]{0,4}",
            any::<String>(),
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(fragment(), 0..12).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn extract_gives_exact_unique_substrings(input in text()) {
            let found = extract(&input);
            let mut seen = BTreeSet::new();
            for f in &found {
                prop_assert!(!f.text.is_empty());
                prop_assert!(input.contains(&f.text), "{:?} not in {:?}", f.text, input);
                prop_assert!(!f.text.chars().any(is_line_break));
                prop_assert!(seen.insert(f.text.clone()), "duplicate {:?}", f.text);
            }
        }

        #[test]
        fn extract_never_panics_on_any_string(input in any::<String>()) {
            let _ = extract(&input);
        }

        #[test]
        fn guarded_text_holds_every_fact_and_guard_is_idempotent(
            source in text(),
            summary in text(),
        ) {
            let given = extract(&source);
            let guarded = guard(&summary, &given);
            prop_assert!(missing(&given, &guarded.text).is_empty(), "{:?}", guarded.text);
            for f in &guarded.restored {
                prop_assert!(guarded.text.contains(&f.text));
            }
            if guarded.restored.is_empty() {
                prop_assert_eq!(&guarded.text, &summary);
            }
            let again = guard(&guarded.text, &given);
            prop_assert_eq!(again.text, guarded.text);
            prop_assert!(again.restored.is_empty());
        }

        #[test]
        fn facts_are_found_where_they_are_written(source in text(), sep in "[ \n]") {
            let given = extract(&source);
            let written: Vec<&str> = given.iter().map(|f| f.text.as_str()).collect();
            prop_assert!(missing(&given, &written.join(&sep)).is_empty());
        }

        #[test]
        fn a_fact_found_has_all_its_digits_in_order(
            source in text(),
            summary in text(),
        ) {
            let digits = |s: &str| -> String {
                s.chars().map(fold_char).filter(char::is_ascii_digit).collect()
            };
            let given = extract(&source);
            let lost = missing(&given, &summary);
            let in_summary = digits(&summary);
            for f in &given {
                if !lost.iter().any(|l| l.text == f.text) {
                    let mut rest = in_summary.chars();
                    for d in digits(&f.text).chars() {
                        prop_assert!(rest.any(|c| c == d), "{:?} in {:?}", f.text, summary);
                    }
                }
            }
        }

        #[test]
        fn too_short_never_panics(summary in any::<String>(), covered in any::<usize>()) {
            let short = too_short(&summary, covered);
            if summary.trim().is_empty() {
                prop_assert!(short);
            }
        }
    }
}
