//! Arithmetic expressions of named parameters, the numbers a description writes as
//! `"=rod_length / 2"`.
//!
//! Grammar (usual precedence; `^` binds tighter than a sign and associates to the right, so
//! `-x^2` is -(x^2) and `2^-1` is 0.5):
//!
//! ```text
//! sum     = product { ("+" | "-") product }
//! product = signed { ("*" | "/") signed }
//! signed  = ("+" | "-") signed | power
//! power   = atom [ "^" signed ]
//! atom    = number | name | name "(" sum { "," sum } ")" | "(" sum ")"
//! ```
//!
//! Names are parameters or the constant `pi`; functions are listed in [`FUNCTIONS`].
//! Hand-written rather than taken from a crate: exmex 0.20 reads `-x^2` as (-x)^2 and its
//! errors do not name the offending token, evalexpr divides integer literals as integers
//! (1/2 = 0); for lengths and angles typed by hand both are traps.

use std::fmt;

/// Functions an expression may call, with their argument count.
pub const FUNCTIONS: [(&str, usize); 15] = [
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("asin", 1),
    ("acos", 1),
    ("atan", 1),
    ("atan2", 2),
    ("sqrt", 1),
    ("abs", 1),
    ("exp", 1),
    ("ln", 1),
    ("min", 2),
    ("max", 2),
    ("hypot", 2),
    ("deg", 1),
];

/// Why an expression has no value: the text, the column (from 1) and the reason.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpressionError {
    pub column: usize,
    pub reason: String,
}

impl fmt::Display for ExpressionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at column {}: {}", self.column, self.reason)
    }
}

/// Evaluates `text` with `lookup` giving the value of each name (None: unknown name, reported
/// with the hint `unknown` returns).
pub fn evaluate(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<f64>,
    unknown: &dyn Fn(&str) -> String,
) -> Result<f64, ExpressionError> {
    let mut p = Parser { text, pos: 0, lookup, unknown };
    let value = p.sum()?;
    p.skip_space();
    if p.pos < text.len() {
        return Err(p.error(format!("unexpected '{}'", p.rest_token())));
    }
    if !value.is_finite() {
        return Err(ExpressionError { column: 1, reason: format!("the value is {value}, not a finite number") });
    }
    Ok(value)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    lookup: &'a dyn Fn(&str) -> Option<f64>,
    unknown: &'a dyn Fn(&str) -> String,
}

impl Parser<'_> {
    fn error(&self, reason: String) -> ExpressionError {
        ExpressionError { column: self.text[..self.pos].chars().count() + 1, reason }
    }

    fn skip_space(&mut self) {
        while self.text[self.pos..].starts_with(char::is_whitespace) {
            self.pos += self.text[self.pos..].chars().next().map_or(1, char::len_utf8);
        }
    }

    /// The next character after spaces, consumed if it is one of `ops`.
    fn eat(&mut self, ops: &[char]) -> Option<char> {
        self.skip_space();
        let c = self.text[self.pos..].chars().next()?;
        ops.contains(&c).then(|| {
            self.pos += c.len_utf8();
            c
        })
    }

    fn rest_token(&self) -> String {
        self.text[self.pos..].chars().take_while(|c| !c.is_whitespace()).take(12).collect()
    }

    fn sum(&mut self) -> Result<f64, ExpressionError> {
        let mut value = self.product()?;
        while let Some(op) = self.eat(&['+', '-']) {
            let rhs = self.product()?;
            value = if op == '+' { value + rhs } else { value - rhs };
        }
        Ok(value)
    }

    fn product(&mut self) -> Result<f64, ExpressionError> {
        let mut value = self.signed()?;
        while let Some(op) = self.eat(&['*', '/']) {
            self.skip_space();
            let at = self.pos;
            let rhs = self.signed()?;
            if op == '/' && rhs == 0.0 {
                self.pos = at;
                return Err(self.error("division by zero".into()));
            }
            value = if op == '*' { value * rhs } else { value / rhs };
        }
        Ok(value)
    }

    fn signed(&mut self) -> Result<f64, ExpressionError> {
        match self.eat(&['+', '-']) {
            Some('-') => Ok(-self.signed()?),
            Some(_) => self.signed(),
            None => self.power(),
        }
    }

    fn power(&mut self) -> Result<f64, ExpressionError> {
        let base = self.atom()?;
        if self.eat(&['^']).is_some() {
            return Ok(base.powf(self.signed()?));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<f64, ExpressionError> {
        self.skip_space();
        let rest = &self.text[self.pos..];
        let Some(c) = rest.chars().next() else {
            return Err(self.error("the expression ends where a number, a name or '(' is expected".into()));
        };
        if c == '(' {
            self.pos += 1;
            let value = self.sum()?;
            if self.eat(&[')']).is_none() {
                return Err(self.error("expected ')'".into()));
            }
            return Ok(value);
        }
        if c.is_ascii_digit() || c == '.' {
            return self.number();
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = self.pos;
            let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
            let name = &rest[..len];
            self.pos += len;
            if self.eat(&['(']).is_some() {
                return self.call(name, start);
            }
            if let Some(value) = (self.lookup)(name) {
                return Ok(value);
            }
            if name == "pi" {
                return Ok(std::f64::consts::PI);
            }
            self.pos = start;
            return Err(self.error((self.unknown)(name)));
        }
        Err(self.error(format!("unexpected '{}'", self.rest_token())))
    }

    fn number(&mut self) -> Result<f64, ExpressionError> {
        let rest = &self.text[self.pos..];
        let bytes = rest.as_bytes();
        let mut len = 0;
        while len < bytes.len() && (bytes[len].is_ascii_digit() || bytes[len] == b'.') {
            len += 1;
        }
        // An exponent: e or E, an optional sign, digits.
        if len < bytes.len() && matches!(bytes[len], b'e' | b'E') {
            let mut k = len + 1;
            if k < bytes.len() && matches!(bytes[k], b'+' | b'-') {
                k += 1;
            }
            if k < bytes.len() && bytes[k].is_ascii_digit() {
                while k < bytes.len() && bytes[k].is_ascii_digit() {
                    k += 1;
                }
                len = k;
            }
        }
        let value =
            rest[..len].parse::<f64>().map_err(|_| self.error(format!("'{}' is not a number", &rest[..len])))?;
        self.pos += len;
        Ok(value)
    }

    fn call(&mut self, name: &str, start: usize) -> Result<f64, ExpressionError> {
        let Some(&(_, arity)) = FUNCTIONS.iter().find(|(f, _)| *f == name) else {
            self.pos = start;
            let known: Vec<&str> = FUNCTIONS.iter().map(|(f, _)| *f).collect();
            return Err(self.error(format!("unknown function '{name}'; functions: {}", known.join(", "))));
        };
        let mut args = vec![self.sum()?];
        while self.eat(&[',']).is_some() {
            args.push(self.sum()?);
        }
        if self.eat(&[')']).is_none() {
            return Err(self.error(format!("expected ')' after the arguments of {name}")));
        }
        if args.len() != arity {
            self.pos = start;
            return Err(self.error(format!("{name} takes {arity} argument(s), got {}", args.len())));
        }
        let (a, b) = (args[0], args.get(1).copied().unwrap_or(0.0));
        Ok(match name {
            "sin" => a.sin(),
            "cos" => a.cos(),
            "tan" => a.tan(),
            "asin" => a.asin(),
            "acos" => a.acos(),
            "atan" => a.atan(),
            "atan2" => a.atan2(b),
            "sqrt" => a.sqrt(),
            "abs" => a.abs(),
            "exp" => a.exp(),
            "ln" => a.ln(),
            "min" => a.min(b),
            "max" => a.max(b),
            "hypot" => a.hypot(b),
            "deg" => a.to_radians(),
            _ => unreachable!("listed in FUNCTIONS"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str) -> Result<f64, ExpressionError> {
        let lookup = |n: &str| match n {
            "L" => Some(2.0),
            "E" => Some(2.1e11),
            _ => None,
        };
        evaluate(text, &lookup, &|n| format!("unknown name '{n}'"))
    }

    #[test]
    fn precedence_signs_and_functions() {
        assert_eq!(eval("1 + 2 * 3").unwrap(), 7.0);
        assert_eq!(eval("-L^2").unwrap(), -4.0, "^ binds tighter than the sign");
        assert_eq!(eval("2^-1").unwrap(), 0.5);
        assert_eq!(eval("2^3^2").unwrap(), 512.0, "right associative");
        assert_eq!(eval("1/2*L").unwrap(), 1.0, "no integer division");
        assert_eq!(eval("(L + 1) / 3").unwrap(), 1.0);
        assert_eq!(eval("E / 1e11").unwrap(), 2.1, "a parameter named E is not Euler's number");
        assert_eq!(eval("2.5e-1 * 4").unwrap(), 1.0);
        assert_eq!(eval("atan2(1, 1) * 4").unwrap(), std::f64::consts::PI);
        assert_eq!(eval("deg(180)").unwrap(), std::f64::consts::PI);
        assert_eq!(eval("hypot(3, 4) - max(1, min(2, 3))").unwrap(), 3.0);
        assert_eq!(eval(" cos(pi) ").unwrap(), -1.0);
    }

    #[test]
    fn errors_point_at_the_column() {
        let e = eval("2 * Lx").unwrap_err();
        assert_eq!((e.column, e.reason.as_str()), (5, "unknown name 'Lx'"));
        let e = eval("1 / (L - 2)").unwrap_err();
        assert_eq!((e.column, e.reason.as_str()), (5, "division by zero"));
        assert!(eval("sinh(1)").unwrap_err().reason.starts_with("unknown function 'sinh'; functions: sin, cos"));
        assert!(eval("atan2(1)").unwrap_err().reason.contains("takes 2 argument(s), got 1"));
        assert_eq!(eval("(1 + 2").unwrap_err().reason, "expected ')'");
        assert_eq!(eval("1 +").unwrap_err().column, 4);
        assert_eq!(eval("1 2").unwrap_err().reason, "unexpected '2'");
        assert!(eval("sqrt(-1)").unwrap_err().reason.contains("not a finite number"));
        assert!(eval("").is_err());
    }
}
