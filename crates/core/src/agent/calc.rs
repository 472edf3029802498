//! The agent's `calculator` tool: [`evaluate`] turns an arithmetic expression into its value as
//! text, or into a [`CalcError`] that says where the expression went wrong, so that the model can
//! fix its call.
//!
//! Owns: the expression grammar, exact rational arithmetic over arbitrary-precision integers
//! (written here: little-endian `u32` limbs), and how a value is printed.
//!
//! Grammar, loosest first: `+ -` (left-associative); `* / %` (left-associative); unary `+ -`;
//! `^` or `**` (right-associative, tighter than unary minus: `-2^2` is `-4`, `2^-2` is `0.25`);
//! numbers (`12`, `1.5`, `.5`, `1e3`, `2.5E-3`, `1_000`) and parentheses. What Chinese keyboards
//! and models type is read as its ASCII twin: `×` `÷`, full-width digits and `（）＋－＊／％．＾`,
//! the minus sign `−`, the ideographic space. No names: functions and variables are errors.
//!
//! Invariants, checked by the tests below:
//! - **Exact.** Every value is a fraction in lowest terms; no floating point anywhere
//!   (`0.1+0.2` is `0.3`, `2^200` prints all its digits).
//! - **Printing.** An integer prints in full. Any other value prints as a decimal: exact when it
//!   ends within [`DECIMALS`] digits after the point, otherwise rounded half away from zero to
//!   that many; trailing zeros trimmed, never `-0`.
//! - **Bounded work.** Input of at most [`MAX_CHARS`] characters, nesting of at most
//!   [`MAX_DEPTH`] levels (parentheses, signs, exponents), so the recursion never overflows the
//!   stack; every numerator and denominator has at most [`MAX_BITS`] bits, and powers are refused
//!   from an estimate before they are computed, so a hostile expression ends quickly in an error.
//! - **Total.** No input panics; every error but the three about the whole input names a 1-based
//!   character column.

use std::cmp::Ordering;

/// The longest expression accepted, in characters.
pub const MAX_CHARS: usize = 1000;
/// The deepest nesting accepted: parentheses, unary signs and exponents, each one level.
pub const MAX_DEPTH: usize = 64;
/// The most bits in a numerator or denominator: about 10 000 decimal digits.
pub const MAX_BITS: u64 = 33_220;
/// Digits printed after the decimal point, at most.
pub const DECIMALS: u32 = 20;
/// The largest exponent magnitude `^` accepts (except for the bases 0, 1 and -1).
const MAX_EXPONENT: u32 = 100_000;

/// Why an expression has no value. Messages are short, lowercase, and name the column (the
/// first character is column 1): they go back to the model as the tool's result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CalcError {
    /// Nothing but whitespace.
    #[error("empty expression")]
    Empty,
    /// More than [`MAX_CHARS`] characters.
    #[error("expression too long (at most {max} characters)", max = MAX_CHARS)]
    TooLong,
    /// More than [`MAX_DEPTH`] levels of parentheses, signs or exponents; the column of the one
    /// too many.
    #[error("too deeply nested at column {0} (at most {max} levels)", max = MAX_DEPTH)]
    TooDeep(usize),
    /// A character or token that cannot stand where it is.
    #[error("unexpected `{text}` at column {column}")]
    Unexpected {
        /// The token as written.
        text: String,
        /// Where it starts.
        column: usize,
    },
    /// An operator, `)` or the end where a number or `(` must come.
    #[error("expected a number at column {0}")]
    ExpectedNumber(usize),
    /// A number written wrongly (`1.2.3`, `1__0`, `1e`); the column where it starts.
    #[error("malformed number at column {0}")]
    BadNumber(usize),
    /// A `(` never closed; the column of the `(`.
    #[error("unclosed `(` from column {0}")]
    Unclosed(usize),
    /// A name such as `sqrt` or `x`.
    #[error("`{name}` at column {column}: functions and variables are not supported")]
    Name {
        /// The name as written.
        name: String,
        /// Where it starts.
        column: usize,
    },
    /// `/` or `%` by zero, or zero to a negative power; the column of the operator.
    #[error("division by zero at column {0}")]
    DivisionByZero(usize),
    /// `^` with an exponent that is not an integer; the column of the `^`.
    #[error("exponent must be a whole number at column {0}")]
    FractionalExponent(usize),
    /// A value beyond [`MAX_BITS`] (or an exponent beyond 100 000); the column of the operator
    /// or number.
    #[error("result too large at column {0} (more than 10000 digits)")]
    ResultTooLarge(usize),
}

/// Evaluate `expr`; the result as text (exact integer, or decimal).
pub fn evaluate(expr: &str) -> Result<String, CalcError> {
    if expr.chars().nth(MAX_CHARS).is_some() {
        return Err(CalcError::TooLong);
    }
    let src: Vec<char> = expr.chars().collect();
    let mut p = Parser {
        src: &src,
        pos: 0,
        at: 0,
        tok: Tok::End,
        depth: 0,
    };
    p.bump()?;
    if matches!(p.tok, Tok::End) {
        return Err(CalcError::Empty);
    }
    let value = p.sum()?;
    if !matches!(p.tok, Tok::End) {
        return Err(p.unexpected());
    }
    Ok(value.show())
}

// ------------------------------------------------------------------ natural numbers

/// A natural number: little-endian `u32` limbs, no high zero limbs (zero is empty).
type Nat = Vec<u32>;

fn trim(mut a: Nat) -> Nat {
    while a.last() == Some(&0) {
        a.pop();
    }
    a
}

fn bits(a: &[u32]) -> u64 {
    a.last().map_or(0, |&top| {
        (a.len() as u64 - 1) * 32 + u64::from(32 - top.leading_zeros())
    })
}

fn cmp(a: &[u32], b: &[u32]) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

fn add(a: &[u32], b: &[u32]) -> Nat {
    let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(a.len() + 1);
    let mut carry = 0u64;
    for (i, &x) in a.iter().enumerate() {
        let s = u64::from(x) + u64::from(b.get(i).copied().unwrap_or(0)) + carry;
        out.push(s as u32);
        carry = s >> 32;
    }
    out.push(carry as u32);
    trim(out)
}

/// `a - b`, for `a >= b`.
fn sub(a: &[u32], b: &[u32]) -> Nat {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i64;
    for (i, &x) in a.iter().enumerate() {
        let d = i64::from(x) - i64::from(b.get(i).copied().unwrap_or(0)) + borrow;
        out.push(d as u32);
        borrow = d >> 32;
    }
    trim(out)
}

fn mul(a: &[u32], b: &[u32]) -> Nat {
    let mut out = vec![0u32; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate() {
        let mut carry = 0u64;
        for (o, &y) in out[i..].iter_mut().zip(b) {
            let t = u64::from(x) * u64::from(y) + u64::from(*o) + carry;
            *o = t as u32;
            carry = t >> 32;
        }
        out[i + b.len()] = carry as u32;
    }
    trim(out)
}

/// `a * m + c`.
fn mul_add(a: &[u32], m: u32, c: u32) -> Nat {
    let mut out = Vec::with_capacity(a.len() + 1);
    let mut carry = u64::from(c);
    for &x in a {
        let t = u64::from(x) * u64::from(m) + carry;
        out.push(t as u32);
        carry = t >> 32;
    }
    out.push(carry as u32);
    trim(out)
}

/// `a` divided by a one-limb `d > 0`: quotient and remainder.
fn divmod_small(a: &[u32], d: u32) -> (Nat, u32) {
    let d = u64::from(d);
    let mut q = vec![0u32; a.len()];
    let mut r = 0u64;
    for i in (0..a.len()).rev() {
        let cur = r << 32 | u64::from(a[i]);
        q[i] = (cur / d) as u32;
        r = cur % d;
    }
    (trim(q), r as u32)
}

/// `a << s` for `s < 32`, one limb longer than `a` (the top limb may be zero).
fn shl(a: &[u32], s: u32) -> Nat {
    let mut out = Vec::with_capacity(a.len() + 1);
    let mut carry = 0u32;
    for &x in a {
        out.push(x << s | carry);
        carry = if s == 0 { 0 } else { x >> (32 - s) };
    }
    out.push(carry);
    out
}

/// `a` divided by `b > 0` (Knuth's algorithm D): quotient and remainder.
fn divmod(a: &[u32], b: &[u32]) -> (Nat, Nat) {
    if cmp(a, b) == Ordering::Less {
        return (Vec::new(), a.to_vec());
    }
    let n = b.len();
    if n == 1 {
        let (q, r) = divmod_small(a, b[0]);
        return (q, trim(vec![r]));
    }
    // Normalize so that the divisor's top limb has its high bit set.
    let s = b[n - 1].leading_zeros();
    let mut v = shl(b, s);
    v.truncate(n);
    let mut u = shl(a, s);
    let m = u.len() - n;
    let mut q = vec![0u32; m];
    let (top, second) = (u64::from(v[n - 1]), u64::from(v[n - 2]));
    for j in (0..m).rev() {
        let num = u64::from(u[j + n]) << 32 | u64::from(u[j + n - 1]);
        let (mut qhat, mut rhat) = (num / top, num % top);
        while qhat > u64::from(u32::MAX) || qhat * second > (rhat << 32 | u64::from(u[j + n - 2])) {
            qhat -= 1;
            rhat += top;
            if rhat > u64::from(u32::MAX) {
                break;
            }
        }
        // u[j..=j+n] -= qhat * v
        let (mut borrow, mut carry) = (0i64, 0u64);
        for i in 0..n {
            let p = qhat * u64::from(v[i]) + carry;
            carry = p >> 32;
            let t = i64::from(u[i + j]) - (p & 0xFFFF_FFFF) as i64 + borrow;
            u[i + j] = t as u32;
            borrow = t >> 32;
        }
        let t = i64::from(u[j + n]) - carry as i64 + borrow;
        u[j + n] = t as u32;
        if t < 0 {
            // qhat was one too large: add v back.
            qhat -= 1;
            let mut c = 0u64;
            for i in 0..n {
                let s = u64::from(u[i + j]) + u64::from(v[i]) + c;
                u[i + j] = s as u32;
                c = s >> 32;
            }
            u[j + n] = u[j + n].wrapping_add(c as u32);
        }
        q[j] = qhat as u32;
    }
    // The remainder is u[..n] shifted back.
    let mut r = vec![0u32; n];
    for i in 0..n {
        let high = if s == 0 { 0 } else { u[i + 1] << (32 - s) };
        r[i] = u[i] >> s | high;
    }
    (trim(q), trim(r))
}

fn div(a: &[u32], b: &[u32]) -> Nat {
    divmod(a, b).0
}

/// The greatest common divisor, by Lehmer's algorithm (Knuth 4.5.2 L): Euclid's steps are run
/// on the leading 62 bits while they agree with the full numbers' steps, then applied to the full
/// numbers at once, so a 10 000-digit gcd takes about a thousand passes, not twenty thousand.
fn gcd(mut a: Nat, mut b: Nat) -> Nat {
    if cmp(&a, &b) == Ordering::Less {
        std::mem::swap(&mut a, &mut b);
    }
    while !b.is_empty() {
        if a.len() <= 2 {
            let word = |n: &[u32]| n.iter().rev().fold(0u64, |w, &l| w << 32 | u64::from(l));
            let (mut x, mut y) = (word(&a), word(&b));
            while y != 0 {
                (x, y) = (y, x % y);
            }
            return trim(vec![x as u32, (x >> 32) as u32]);
        }
        // Euclid on the leading bits, with the cofactors (x ≈ ca·a + cb·b, y ≈ cc·a + cd·b),
        // while both bounds on the quotient agree and nothing overflows.
        let shift = bits(&a) - 62;
        let (mut x, mut y) = (leading(&a, shift), leading(&b, shift));
        let (mut ca, mut cb, mut cc, mut cd) = (1i64, 0i64, 0i64, 1i64);
        while let (Some(xa), Some(xb), Some(yc), Some(yd)) = (
            x.checked_add(ca),
            x.checked_add(cb),
            y.checked_add(cc),
            y.checked_add(cd),
        ) {
            if yc <= 0 || yd <= 0 || xa / yc != xb / yd {
                break;
            }
            let q = xa / yc;
            let step = |p: i64, c: i64| c.checked_mul(q).and_then(|qc| p.checked_sub(qc));
            let (Some(nc), Some(nd), Some(ny)) = (step(ca, cc), step(cb, cd), step(x, y)) else {
                break;
            };
            (ca, cb, cc, cd, x, y) = (cc, cd, nc, nd, y, ny);
        }
        // The matrix is unimodular, so any non-negative result keeps the gcd; it must also make
        // progress, else one full division step.
        let next = if cb == 0 {
            None
        } else {
            combine(&a, ca, &b, cb).zip(combine(&a, cc, &b, cd))
        };
        match next {
            Some((na, nb)) if cmp(&nb, &b).is_lt() && cmp(&nb, &na).is_le() => (a, b) = (na, nb),
            _ => {
                let r = divmod(&a, &b).1;
                a = std::mem::replace(&mut b, r);
            }
        }
    }
    a
}

/// Bits `shift..shift + 62` of `a`.
fn leading(a: &[u32], shift: u64) -> i64 {
    let at = (shift / 32) as usize;
    let window = (0..3).rev().fold(0u128, |w, k| {
        w << 32 | u128::from(a.get(at + k).copied().unwrap_or(0))
    });
    ((window >> (shift % 32)) & ((1 << 62) - 1)) as i64
}

/// `p * x + q * y`, or `None` if negative.
fn combine(x: &[u32], p: i64, y: &[u32], q: i64) -> Option<Nat> {
    let mut out = Vec::with_capacity(x.len().max(y.len()) + 3);
    let mut carry = 0i128;
    for i in 0..x.len().max(y.len()) {
        let limb = |n: &[u32]| i128::from(n.get(i).copied().unwrap_or(0));
        let t = i128::from(p) * limb(x) + i128::from(q) * limb(y) + carry;
        out.push(t as u32);
        carry = t >> 32;
    }
    while carry > 0 {
        out.push(carry as u32);
        carry >>= 32;
    }
    (carry == 0).then(|| trim(out))
}

fn pow(base: &[u32], mut e: u32) -> Nat {
    let mut out = vec![1];
    let mut base = base.to_vec();
    while e > 0 {
        if e & 1 == 1 {
            out = mul(&out, &base);
        }
        e >>= 1;
        if e > 0 {
            base = mul(&base, &base);
        }
    }
    out
}

/// Decimal digits of `a` (`"0"` for zero).
fn decimal(a: &[u32]) -> String {
    let mut chunks = Vec::new();
    let mut a = a.to_vec();
    while !a.is_empty() {
        let (q, r) = divmod_small(&a, 1_000_000_000);
        chunks.push(r);
        a = q;
    }
    let mut out = chunks.pop().unwrap_or(0).to_string();
    for c in chunks.iter().rev() {
        let c = c.to_string();
        out.extend(std::iter::repeat_n('0', 9 - c.len()));
        out.push_str(&c);
    }
    out
}

// ------------------------------------------------------------------ fractions

/// A fraction in lowest terms: `den > 0`, zero is `0/1` and not negative, and neither part has
/// more than [`MAX_BITS`] bits once it leaves an operation.
#[derive(Debug, Clone)]
struct Q {
    neg: bool,
    num: Nat,
    den: Nat,
}

impl Q {
    /// `±num/den` with `gcd(num, den) == 1` already.
    fn raw(neg: bool, num: Nat, den: Nat) -> Q {
        if num.is_empty() {
            return Q::int(Vec::new());
        }
        Q { neg, num, den }
    }

    fn int(num: Nat) -> Q {
        Q {
            neg: false,
            num,
            den: vec![1],
        }
    }

    /// `±num/den` for any `den > 0`: reduced.
    fn reduced(neg: bool, num: Nat, den: Nat) -> Q {
        if den == [1] {
            return Q::raw(neg, num, den);
        }
        let g = gcd(num.clone(), den.clone());
        if g == [1] {
            Q::raw(neg, num, den)
        } else {
            Q::raw(neg, div(&num, &g), div(&den, &g))
        }
    }

    fn is_int(&self) -> bool {
        self.den == [1]
    }

    fn is_zero(&self) -> bool {
        self.num.is_empty()
    }

    fn neg(mut self) -> Q {
        self.neg = !self.neg && !self.is_zero();
        self
    }

    /// The value, if it is within [`MAX_BITS`]; else an error at `col`.
    fn fits(self, col: usize) -> Result<Q, CalcError> {
        if bits(&self.num) > MAX_BITS || bits(&self.den) > MAX_BITS {
            return Err(CalcError::ResultTooLarge(col));
        }
        Ok(self)
    }

    /// `self + o`, reducing by `gcd(den, o.den)` first (Knuth 4.5.1), so that adding an integer
    /// or a fraction with a small denominator costs no large gcd.
    fn add(&self, o: &Q, col: usize) -> Result<Q, CalcError> {
        let g = gcd(self.den.clone(), o.den.clone());
        let (b1, d1) = (div(&self.den, &g), div(&o.den, &g));
        let (x, y) = (mul(&self.num, &d1), mul(&o.num, &b1));
        let (neg, t) = if self.neg == o.neg {
            (self.neg, add(&x, &y))
        } else if cmp(&x, &y) == Ordering::Less {
            (o.neg, sub(&y, &x))
        } else {
            (self.neg, sub(&x, &y))
        };
        // t / (g * b1 * d1); only factors of g can be shared with t.
        let g2 = if g == [1] { g } else { gcd(t.clone(), g) };
        let (t, b) = if g2 == [1] {
            (t, self.den.clone())
        } else {
            (div(&t, &g2), div(&self.den, &g2))
        };
        Q::raw(neg, t, mul(&b, &d1)).fits(col)
    }

    fn sub(&self, o: &Q, col: usize) -> Result<Q, CalcError> {
        self.add(&o.clone().neg(), col)
    }

    /// `self * o`, cancelling across first, and refusing from the sizes before multiplying.
    fn mul(&self, o: &Q, col: usize) -> Result<Q, CalcError> {
        if self.is_zero() || o.is_zero() {
            return Ok(Q::int(Vec::new()));
        }
        let (g1, g2) = (
            gcd(self.num.clone(), o.den.clone()),
            gcd(o.num.clone(), self.den.clone()),
        );
        let (n1, d2) = (div(&self.num, &g1), div(&o.den, &g1));
        let (n2, d1) = (div(&o.num, &g2), div(&self.den, &g2));
        // A product has at least bits(a) + bits(b) - 1 bits.
        if bits(&n1) + bits(&n2) > MAX_BITS + 1 || bits(&d1) + bits(&d2) > MAX_BITS + 1 {
            return Err(CalcError::ResultTooLarge(col));
        }
        Q::raw(self.neg != o.neg, mul(&n1, &n2), mul(&d1, &d2)).fits(col)
    }

    fn div(&self, o: &Q, col: usize) -> Result<Q, CalcError> {
        if o.is_zero() {
            return Err(CalcError::DivisionByZero(col));
        }
        let inverse = Q::raw(o.neg, o.den.clone(), o.num.clone());
        self.mul(&inverse, col)
    }

    /// `self - o * trunc(self / o)`: the sign of `self`, as Rust's `%` on integers.
    fn rem(&self, o: &Q, col: usize) -> Result<Q, CalcError> {
        if o.is_zero() {
            return Err(CalcError::DivisionByZero(col));
        }
        let (x, y) = (mul(&self.num, &o.den), mul(&self.den, &o.num));
        let (t, r) = divmod(&x, &y);
        // Computed as written, the gcds involve o's parts only (cheap for `x % 1`, `x % 0.5`)...
        let t = Q::raw(self.neg != o.neg, t, vec![1]);
        if let Ok(value) = o.mul(&t, col).and_then(|ot| self.sub(&ot, col)) {
            return Ok(value);
        }
        // ... but o·t may be too large to hold when the remainder is not: r / (b·d) for
        // self = a/b, o = c/d.
        Q::reduced(self.neg, r, mul(&self.den, &o.den)).fits(col)
    }

    /// `self ^ e` for a whole `e`; refused from an estimate of the size before any work.
    fn pow(&self, e: &Q, col: usize) -> Result<Q, CalcError> {
        if !e.is_int() {
            return Err(CalcError::FractionalExponent(col));
        }
        let odd = e.num.first().is_some_and(|&l| l & 1 == 1);
        if self.is_zero() {
            return match (e.is_zero(), e.neg) {
                (true, _) => Ok(Q::int(vec![1])),
                (false, true) => Err(CalcError::DivisionByZero(col)),
                (false, false) => Ok(Q::int(Vec::new())),
            };
        }
        if self.num == [1] && self.is_int() {
            return Ok(Q::raw(self.neg && odd, vec![1], vec![1]));
        }
        let n = match e.num[..] {
            [] => 0,
            [n] if n <= MAX_EXPONENT => n,
            _ => return Err(CalcError::ResultTooLarge(col)),
        };
        // a^n has at least (bits(a) - 1) * n + 1 bits.
        let least = |a: &[u32]| (bits(a) - 1) * u64::from(n) + 1;
        if least(&self.num) > MAX_BITS || least(&self.den) > MAX_BITS {
            return Err(CalcError::ResultTooLarge(col));
        }
        let (num, den) = (pow(&self.num, n), pow(&self.den, n));
        let (num, den) = if e.neg { (den, num) } else { (num, den) };
        Q::raw(self.neg && odd, num, den).fits(col)
    }

    /// The value as text: see the module's invariants.
    fn show(&self) -> String {
        let sign = if self.neg { "-" } else { "" };
        if self.is_int() {
            return format!("{sign}{}", decimal(&self.num));
        }
        let (mut q, r) = divmod(&mul(&self.num, &pow(&[10], DECIMALS)), &self.den);
        if cmp(&add(&r, &r), &self.den) != Ordering::Less {
            q = add(&q, &[1]);
        }
        if q.is_empty() {
            return "0".into();
        }
        let digits = decimal(&q);
        let places = DECIMALS as usize;
        let pad = (places + 1).saturating_sub(digits.len());
        let digits: String = std::iter::repeat_n('0', pad)
            .chain(digits.chars())
            .collect();
        let (whole, fraction) = digits.split_at(digits.len() - places);
        let fraction = fraction.trim_end_matches('0');
        let point = if fraction.is_empty() { "" } else { "." };
        format!("{sign}{whole}{point}{fraction}")
    }
}

// ------------------------------------------------------------------ parsing

/// A token: a number, or an operator or parenthesis as its ASCII character (`**` is `^`).
enum Tok {
    Num(Q),
    Op(char),
    End,
}

/// Precedence climbing by recursive descent, evaluating as it goes; `tok` is the lookahead,
/// which starts at `src[at]` and ends before `src[pos]`.
struct Parser<'a> {
    src: &'a [char],
    pos: usize,
    at: usize,
    tok: Tok,
    depth: usize,
}

/// The ASCII twin of what Chinese keyboards and models type.
fn norm(c: char) -> char {
    match c {
        '\u{FF10}'..='\u{FF19}' => char::from(b'0' + (u32::from(c) - 0xFF10) as u8),
        '（' => '(',
        '）' => ')',
        '＋' => '+',
        '－' | '−' => '-',
        '＊' | '×' => '*',
        '／' | '÷' => '/',
        '％' => '%',
        '．' => '.',
        '＾' => '^',
        _ => c,
    }
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{A0}' | '\u{3000}')
}

impl Parser<'_> {
    fn col(&self) -> usize {
        self.at + 1
    }

    fn char_at(&self, i: usize) -> char {
        self.src.get(i).map_or('\0', |&c| norm(c))
    }

    fn unexpected(&self) -> CalcError {
        CalcError::Unexpected {
            text: self.src[self.at..self.pos].iter().collect(),
            column: self.col(),
        }
    }

    /// One level deeper, for the token at `col`.
    fn enter(&mut self, col: usize) -> Result<(), CalcError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(CalcError::TooDeep(col));
        }
        Ok(())
    }

    /// Read the next token into `tok`.
    fn bump(&mut self) -> Result<(), CalcError> {
        let mut i = self.pos;
        while self.src.get(i).is_some_and(|&c| is_space(c)) {
            i += 1;
        }
        self.at = i;
        let c = self.char_at(i);
        let (tok, end) = match c {
            '\0' if i >= self.src.len() => (Tok::End, i),
            '0'..='9' | '.' => self.number(i)?,
            '*' if self.char_at(i + 1) == '*' => (Tok::Op('^'), i + 2),
            '+' | '-' | '*' | '/' | '%' | '^' | '(' | ')' => (Tok::Op(c), i + 1),
            'a'..='z' | 'A'..='Z' | '_' => {
                let mut end = i;
                while matches!(self.char_at(end), 'a'..='z' | 'A'..='Z' | '0'..='9' | '_') {
                    end += 1;
                }
                return Err(CalcError::Name {
                    name: self.src[i..end].iter().collect(),
                    column: i + 1,
                });
            }
            _ => {
                self.pos = i + 1;
                return Err(self.unexpected());
            }
        };
        self.tok = tok;
        self.pos = end;
        Ok(())
    }

    /// The number starting at `start` (a digit or `.`), and where it ends.
    fn number(&self, start: usize) -> Result<(Tok, usize), CalcError> {
        let bad = CalcError::BadNumber(start + 1);
        let (mut mantissa, mut digits, mut scale, mut point) = (Vec::new(), 0usize, 0i64, false);
        let mut j = start;
        loop {
            let c = self.char_at(j);
            if let Some(d) = c.to_digit(10) {
                mantissa = mul_add(&mantissa, 10, d);
                digits += 1;
                scale += i64::from(point);
            } else if c == '.' && !point {
                point = true;
            } else if !(c == '_'
                && j > start
                && self.char_at(j - 1).is_ascii_digit()
                && self.char_at(j + 1).is_ascii_digit())
            {
                break;
            }
            j += 1;
        }
        if digits == 0 {
            return Err(bad);
        }
        let mut exponent = 0i64;
        if matches!(self.char_at(j), 'e' | 'E') {
            j += 1;
            let negative = self.char_at(j) == '-';
            if matches!(self.char_at(j), '+' | '-') {
                j += 1;
            }
            if !self.char_at(j).is_ascii_digit() {
                return Err(bad);
            }
            while let Some(d) = self.char_at(j).to_digit(10) {
                exponent = (exponent * 10 + i64::from(d)).min(1_000_000);
                j += 1;
            }
            if negative {
                exponent = -exponent;
            }
        }
        if matches!(self.char_at(j), '.' | '_' | '0'..='9') {
            return Err(bad);
        }
        if mantissa.is_empty() {
            return Ok((Tok::Num(Q::int(mantissa)), j));
        }
        let shift = exponent - scale;
        if shift.unsigned_abs() > 12_000 {
            return Err(CalcError::ResultTooLarge(start + 1));
        }
        let ten = pow(&[10], shift.unsigned_abs() as u32);
        let value = if shift >= 0 {
            Q::int(mul(&mantissa, &ten))
        } else {
            Q::reduced(false, mantissa, ten)
        };
        Ok((Tok::Num(value.fits(start + 1)?), j))
    }

    /// `product (('+' | '-') product)*`
    fn sum(&mut self) -> Result<Q, CalcError> {
        let mut acc = self.product()?;
        while let Tok::Op(op @ ('+' | '-')) = self.tok {
            let col = self.col();
            self.bump()?;
            let rhs = self.product()?;
            acc = if op == '+' {
                acc.add(&rhs, col)?
            } else {
                acc.sub(&rhs, col)?
            };
        }
        Ok(acc)
    }

    /// `unary (('*' | '/' | '%') unary)*`
    fn product(&mut self) -> Result<Q, CalcError> {
        let mut acc = self.unary()?;
        while let Tok::Op(op @ ('*' | '/' | '%')) = self.tok {
            let col = self.col();
            self.bump()?;
            let rhs = self.unary()?;
            acc = match op {
                '*' => acc.mul(&rhs, col)?,
                '/' => acc.div(&rhs, col)?,
                _ => acc.rem(&rhs, col)?,
            };
        }
        Ok(acc)
    }

    /// `('+' | '-') unary | atom ('^' unary)?`
    fn unary(&mut self) -> Result<Q, CalcError> {
        if let Tok::Op(op @ ('+' | '-')) = self.tok {
            self.enter(self.col())?;
            self.bump()?;
            let value = self.unary()?;
            self.depth -= 1;
            return Ok(if op == '-' { value.neg() } else { value });
        }
        let base = self.atom()?;
        if let Tok::Op('^') = self.tok {
            let col = self.col();
            self.enter(col)?;
            self.bump()?;
            let exponent = self.unary()?;
            self.depth -= 1;
            return base.pow(&exponent, col);
        }
        Ok(base)
    }

    /// `number | '(' sum ')'`
    fn atom(&mut self) -> Result<Q, CalcError> {
        match std::mem::replace(&mut self.tok, Tok::End) {
            Tok::Num(value) => {
                self.bump()?;
                Ok(value)
            }
            Tok::Op('(') => {
                let open = self.col();
                self.enter(open)?;
                self.bump()?;
                let value = self.sum()?;
                match self.tok {
                    Tok::Op(')') => {}
                    Tok::End => return Err(CalcError::Unclosed(open)),
                    _ => return Err(self.unexpected()),
                }
                self.depth -= 1;
                self.bump()?;
                Ok(value)
            }
            _ => Err(CalcError::ExpectedNumber(self.col())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The value, or `error: ` and the message.
    fn run(input: &str) -> String {
        match evaluate(input) {
            Ok(value) => value,
            Err(e) => format!("error: {e}"),
        }
    }

    fn check(input: &str, expected: &str) {
        assert_eq!(run(input), expected, "{input:?}");
    }

    #[test]
    fn precedence_and_associativity() {
        for (input, expected) in [
            ("1+2*3", "7"),
            ("(1+2)*3", "9"),
            ("10-4-3", "3"),
            ("10-(4-3)", "9"),
            ("100/10/5", "2"),
            ("2*3%4", "2"),
            ("2+3%4", "5"),
            ("7%4*3", "9"),
            ("2^3^2", "512"),
            ("(2^3)^2", "64"),
            ("2**3**2", "512"),
            ("2*3^2", "18"),
            ("-2^2", "-4"),
            ("(-2)^2", "4"),
            ("-2^3", "-8"),
            ("2^-2", "0.25"),
            ("-2^-2", "-0.25"),
            ("2^-1^2", "0.5"),
            ("--3", "3"),
            ("+-+3", "-3"),
            ("3--3", "6"),
            ("3*-2", "-6"),
            ("-(2+3)*2", "-10"),
            ("((((7))))", "7"),
            (" 1 +\t2 \n* 3 ", "7"),
            ("8/2*4", "16"),
        ] {
            check(input, expected);
        }
    }

    #[test]
    fn numbers() {
        for (input, expected) in [
            ("12", "12"),
            ("0", "0"),
            ("007", "7"),
            ("1.5", "1.5"),
            (".5", "0.5"),
            ("1.", "1"),
            ("1.50", "1.5"),
            ("1e3", "1000"),
            ("1E3", "1000"),
            ("2.5E-3", "0.0025"),
            ("1e+2", "100"),
            ("1.5e1", "15"),
            ("0e999999999", "0"),
            ("1_000_000", "1000000"),
            ("1_0.2_5", "10.25"),
            ("-0", "0"),
            ("-0.0", "0"),
            ("0.000001", "0.000001"),
            (
                "123456789012345678901234567890",
                "123456789012345678901234567890",
            ),
        ] {
            check(input, expected);
        }
    }

    #[test]
    fn what_chinese_keyboards_type() {
        for (input, expected) in [
            ("3×4", "12"),
            ("12÷4", "3"),
            ("１２３", "123"),
            ("（１＋２）＊３", "9"),
            ("１０－３", "7"),
            ("１０／４", "2.5"),
            ("１０％３", "1"),
            ("１．５＋０．５", "2"),
            ("２＾１０", "1024"),
            ("２＊＊３", "8"),
            ("5 − 2", "3"),
            ("1\u{3000}+\u{3000}1", "2"),
        ] {
            check(input, expected);
        }
    }

    #[test]
    fn exact_results() {
        for (input, expected) in [
            ("0.1+0.2", "0.3"),
            ("0.1+0.2-0.3", "0"),
            ("1/3+1/3+1/3", "1"),
            ("1/3*3", "1"),
            (
                "99999999999999999999*99999999999999999999",
                "9999999999999999999800000000000000000001",
            ),
            (
                "2^200",
                "1606938044258990275541962092341162602522202993782792835301376",
            ),
            (
                "10^50+1",
                "100000000000000000000000000000000000000000000000001",
            ),
            ("2^64", "18446744073709551616"),
            ("2^64-1", "18446744073709551615"),
            ("-(2^100)", "-1267650600228229401496703205376"),
            ("2^100/2^99", "2"),
            ("(2^100+1)%(2^64)", "1"),
            (
                "(10^40+7)/(10^20)",
                "100000000000000000000.00000000000000000007",
            ),
            ("18446744073709551616/4294967296", "4294967296"),
            ("(2^96+2^64)/(2^64+1)", "4294967296.99999999976716935629"),
            ("1e-20", "0.00000000000000000001"),
            ("1.5e300/1e300", "1.5"),
        ] {
            check(input, expected);
        }
    }

    #[test]
    fn decimals_round_half_away_from_zero() {
        for (input, expected) in [
            ("1/3", "0.33333333333333333333"),
            ("2/3", "0.66666666666666666667"),
            ("-2/3", "-0.66666666666666666667"),
            ("1/8", "0.125"),
            ("-1/8", "-0.125"),
            ("22/7", "3.14285714285714285714"),
            ("1/7", "0.14285714285714285714"),
            ("10/4", "2.5"),
            ("5e-21", "0.00000000000000000001"),
            ("-5e-21", "-0.00000000000000000001"),
            ("4e-21", "0"),
            ("-4e-21", "0"),
            ("1-1e-25", "1"),
            ("2^-20", "0.00000095367431640625"),
            ("2^-21", "0.00000047683715820313"),
            ("1/(2^70)", "0"),
        ] {
            check(input, expected);
        }
    }

    #[test]
    fn remainder_and_powers() {
        for (input, expected) in [
            ("7%3", "1"),
            ("-7%3", "-1"),
            ("7%-3", "1"),
            ("-7%-3", "-1"),
            ("6%3", "0"),
            ("5.5%2", "1.5"),
            ("-5.5%2", "-1.5"),
            ("1%0.3", "0.1"),
            ("7.5%-2", "1.5"),
            ("(1/3)%(1/4)", "0.08333333333333333333"),
            ("0^0", "1"),
            ("0^5", "0"),
            ("5^0", "1"),
            ("(2/3)^0", "1"),
            ("2^-2", "0.25"),
            ("(-2)^-3", "-0.125"),
            ("(2/3)^2", "0.44444444444444444444"),
            ("(2/3)^-2", "2.25"),
            ("1.5^2", "2.25"),
            ("1^1000000000", "1"),
            ("(-1)^1000000001", "-1"),
            ("(-1)^-1000000000", "1"),
            ("0^1000000000", "0"),
            ("2^(3-1)", "4"),
            ("4^(1/2*2)", "4"),
            ("2^2.0", "4"),
            ("10^10000/10^9999", "10"),
        ] {
            check(input, expected);
        }
    }

    #[test]
    fn errors_say_where() {
        let long = "1+".repeat(500) + "1";
        let deep = "(".repeat(65) + "1" + &")".repeat(65);
        let ok_deep = "(".repeat(64) + "1" + &")".repeat(64);
        let signs = "-".repeat(65) + "1";
        let powers = "1^".repeat(65) + "1";
        for (input, expected) in [
            ("", "error: empty expression"),
            ("  \t ", "error: empty expression"),
            (
                &long,
                "error: expression too long (at most 1000 characters)",
            ),
            (&long[1..], "500"),
            (&ok_deep, "1"),
            (
                &deep,
                "error: too deeply nested at column 65 (at most 64 levels)",
            ),
            (
                &signs,
                "error: too deeply nested at column 65 (at most 64 levels)",
            ),
            (
                &powers,
                "error: too deeply nested at column 130 (at most 64 levels)",
            ),
            ("(1+2))", "error: unexpected `)` at column 6"),
            ("1 2", "error: unexpected `2` at column 3"),
            ("2(3)", "error: unexpected `(` at column 2"),
            ("(1 2)", "error: unexpected `2` at column 4"),
            ("1,000", "error: unexpected `,` at column 2"),
            ("2 = 2", "error: unexpected `=` at column 3"),
            ("π*2", "error: unexpected `π` at column 1"),
            ("*2", "error: expected a number at column 1"),
            ("1+", "error: expected a number at column 3"),
            ("1 + * 2", "error: expected a number at column 5"),
            ("()", "error: expected a number at column 2"),
            ("1..2", "error: malformed number at column 1"),
            ("1.2.3", "error: malformed number at column 1"),
            ("1__0", "error: malformed number at column 1"),
            ("1_", "error: malformed number at column 1"),
            ("1_.5", "error: malformed number at column 1"),
            ("2+1e", "error: malformed number at column 3"),
            ("1e+", "error: malformed number at column 1"),
            ("1e3.5", "error: malformed number at column 1"),
            (".", "error: malformed number at column 1"),
            ("3 + .e1", "error: malformed number at column 5"),
            ("(1+2", "error: unclosed `(` from column 1"),
            ("1*(2+(3)", "error: unclosed `(` from column 3"),
            (
                "sqrt(2)",
                "error: `sqrt` at column 1: functions and variables are not supported",
            ),
            (
                "2*x",
                "error: `x` at column 3: functions and variables are not supported",
            ),
            (
                "2x",
                "error: `x` at column 2: functions and variables are not supported",
            ),
            (
                "1 + _a1 ",
                "error: `_a1` at column 5: functions and variables are not supported",
            ),
            ("1/0", "error: division by zero at column 2"),
            ("1 / (2-2)", "error: division by zero at column 3"),
            ("5%0", "error: division by zero at column 2"),
            ("5.5 % 0.0", "error: division by zero at column 5"),
            ("0^-1", "error: division by zero at column 2"),
            (
                "2^0.5",
                "error: exponent must be a whole number at column 2",
            ),
            (
                "2^(1/3)",
                "error: exponent must be a whole number at column 2",
            ),
            (
                "2^100001",
                "error: result too large at column 2 (more than 10000 digits)",
            ),
            (
                "2^40000",
                "error: result too large at column 2 (more than 10000 digits)",
            ),
            (
                "0.5^40000",
                "error: result too large at column 4 (more than 10000 digits)",
            ),
            (
                "10^10001",
                "error: result too large at column 3 (more than 10000 digits)",
            ),
            (
                "(10^9999)^10",
                "error: result too large at column 10 (more than 10000 digits)",
            ),
            (
                "10^6000*10^6000",
                "error: result too large at column 8 (more than 10000 digits)",
            ),
            (
                "10^6000*10^6000/10^6000",
                "error: result too large at column 8 (more than 10000 digits)",
            ),
            (
                "9^9^9",
                "error: result too large at column 2 (more than 10000 digits)",
            ),
            (
                "2^2^2^2^2",
                "error: result too large at column 2 (more than 10000 digits)",
            ),
            (
                "1e20000",
                "error: result too large at column 1 (more than 10000 digits)",
            ),
            (
                "1+1e-20000",
                "error: result too large at column 3 (more than 10000 digits)",
            ),
        ] {
            check(input, expected);
        }
    }

    #[test]
    fn the_limits_are_reachable() {
        // 10^10000 has 10001 digits and fits; its square does not.
        assert_eq!(run("10^10000").len(), 10001);
        assert_eq!(run("(10^10000 - 1) % 10"), "9");
        check(
            "(10^10000)^2",
            "error: result too large at column 11 (more than 10000 digits)",
        );
        // A fraction with a 10 000-digit denominator still prints.
        check("1/(10^9999+1)", "0");
        check("(10^9999+1)/(10^9999)", "1");
        // A small remainder of a large value, by a fraction with a large denominator.
        check(
            "(2^33000/3) % (7/(2^32000+1)) * (2^32000+1)",
            "1.66666666666666666667",
        );
    }

    /// An integer expression as text and its value, built from + - * over small operands.
    fn int_expr() -> impl Strategy<Value = (String, i128)> {
        let leaf = (-30i128..=30).prop_map(|n| (n.to_string(), n));
        leaf.prop_recursive(4, 24, 2, |inner| {
            (
                inner.clone(),
                prop_oneof![Just('+'), Just('-'), Just('*')],
                inner,
            )
                .prop_map(|((a, x), op, (b, y))| {
                    let value = match op {
                        '+' => x + y,
                        '-' => x - y,
                        _ => x * y,
                    };
                    (format!("({a}){op}({b})"), value)
                })
        })
    }

    /// Flat sums of products, without parentheses: precedence and left associativity.
    fn flat_expr() -> impl Strategy<Value = (String, i128)> {
        proptest::collection::vec((0usize..3, -999i128..=999), 1..12).prop_map(|terms| {
            let mut text = String::new();
            let (mut total, mut product) = (0i128, 1i128);
            let mut sign = 1i128;
            for (i, &(op, n)) in terms.iter().enumerate() {
                if i > 0 {
                    match op {
                        0 => {
                            total += sign * product;
                            (sign, product) = (1, 1);
                            text.push_str(" + ");
                        }
                        1 => {
                            total += sign * product;
                            (sign, product) = (-1, 1);
                            text.push_str(" - ");
                        }
                        _ => text.push_str(" * "),
                    }
                }
                product *= n;
                text.push_str(&n.to_string());
            }
            (text, total + sign * product)
        })
    }

    /// A limb, often one at an edge of long division's estimates.
    fn limb() -> impl Strategy<Value = u32> {
        prop_oneof![
            Just(0u32),
            Just(1),
            Just(u32::MAX),
            Just(u32::MAX - 1),
            Just(1 << 31),
            Just((1 << 31) - 1),
            any::<u32>(),
        ]
    }

    /// `n/d` as a fraction.
    fn frac(n: i128, d: i128) -> Q {
        let limbs = |v: i128| {
            trim(vec![
                v.unsigned_abs() as u32,
                (v.unsigned_abs() >> 32) as u32,
            ])
        };
        Q::reduced((n < 0) != (d < 0), limbs(n), limbs(d))
    }

    /// A fraction's signed numerator and denominator, and whether it is in lowest terms.
    fn parts(x: &Q) -> (i128, i128, bool) {
        let value = |n: &[u32]| n.iter().rev().fold(0i128, |v, &l| v << 32 | i128::from(l));
        let (n, d) = (value(&x.num), value(&x.den));
        (
            if x.neg { -n } else { n },
            d,
            gcd(x.num.clone(), x.den.clone()) == [1],
        )
    }

    /// `n/d` in lowest terms, with a positive denominator.
    fn lowest(n: i128, d: i128) -> (i128, i128, bool) {
        let (mut a, mut b) = (n.abs(), d.abs());
        while b != 0 {
            (a, b) = (b, a % b);
        }
        let g = a * d.signum();
        (n / g, d / g, true)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn integer_expressions_agree_with_i128((text, value) in int_expr()) {
            prop_assert_eq!(evaluate(&text), Ok(value.to_string()), "{}", text);
        }

        #[test]
        fn precedence_agrees_with_i128((text, value) in flat_expr()) {
            prop_assert_eq!(evaluate(&text), Ok(value.to_string()), "{}", text);
        }

        #[test]
        fn division_is_exact(a in -10i128.pow(18)..10i128.pow(18), b in 1i128..10i128.pow(12)) {
            // (a / b) * b == a, and the quotient and remainder agree with i128.
            prop_assert_eq!(evaluate(&format!("({a})/({b})*{b}")), Ok(a.to_string()));
            prop_assert_eq!(evaluate(&format!("({a})%{b}")), Ok((a % b).to_string()));
            prop_assert_eq!(
                evaluate(&format!("(({a})-({a})%{b})/{b}")),
                Ok((a / b).to_string())
            );
        }

        #[test]
        fn long_division_undoes_multiplication(
            a in proptest::collection::vec(limb(), 0..8),
            b in proptest::collection::vec(limb(), 1..6),
        ) {
            let (a, b) = (trim(a), trim(b));
            prop_assume!(!b.is_empty());
            let (q, r) = divmod(&a, &b);
            prop_assert_eq!(add(&mul(&q, &b), &r), a);
            prop_assert_eq!(cmp(&r, &b), Ordering::Less);
        }

        #[test]
        fn lehmer_agrees_with_euclid(
            a in proptest::collection::vec(limb(), 0..40),
            b in proptest::collection::vec(limb(), 0..40),
            common in proptest::collection::vec(limb(), 0..6),
        ) {
            let common = trim(add(&common, &[1]));
            let (a, b) = (mul(&trim(a), &common), mul(&trim(b), &common));
            let (mut x, mut y) = (a.clone(), b.clone());
            while !y.is_empty() {
                let r = divmod(&x, &y).1;
                x = std::mem::replace(&mut y, r);
            }
            prop_assert_eq!(gcd(a, b), x);
        }

        #[test]
        fn fractions_agree_with_i128_and_stay_in_lowest_terms(
            (a, b, c, d) in (-60i128..60, 1i128..60, -60i128..60, 1i128..60),
            k in -5i128..=5,
        ) {
            let (x, y) = (frac(a, b), frac(c, d));
            prop_assert_eq!(parts(&x.add(&y, 1).unwrap()), lowest(a * d + c * b, b * d));
            prop_assert_eq!(parts(&x.sub(&y, 1).unwrap()), lowest(a * d - c * b, b * d));
            prop_assert_eq!(parts(&x.mul(&y, 1).unwrap()), lowest(a * c, b * d));
            if c == 0 {
                prop_assert_eq!(x.div(&y, 1).unwrap_err(), CalcError::DivisionByZero(1));
                prop_assert_eq!(x.rem(&y, 1).unwrap_err(), CalcError::DivisionByZero(1));
            } else {
                prop_assert_eq!(parts(&x.div(&y, 1).unwrap()), lowest(a * d, b * c));
                let t = (a * d) / (b * c);
                prop_assert_eq!(parts(&x.rem(&y, 1).unwrap()), lowest(a * d - c * t * b, b * d));
            }
            let power = x.pow(&frac(k, 1), 1);
            if a == 0 && k < 0 {
                prop_assert_eq!(power.unwrap_err(), CalcError::DivisionByZero(1));
            } else {
                let (n, m) = (a.pow(k.unsigned_abs() as u32), b.pow(k.unsigned_abs() as u32));
                let want = if k < 0 { lowest(m, n) } else { lowest(n, m) };
                prop_assert_eq!(parts(&power.unwrap()), want);
            }
        }

        #[test]
        fn random_text_never_panics(s in "\\PC{0,40}") {
            let _ = evaluate(&s);
        }

        #[test]
        fn random_arithmetic_never_panics(
            s in "[0-9０-９.eE_+\\-*/%^()（）×÷ a]{0,60}"
        ) {
            let _ = evaluate(&s);
        }
    }
}
