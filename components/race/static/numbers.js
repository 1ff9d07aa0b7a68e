// The race view's numbers as the app prints them (an ES module).

/** A number with four significant digits, as the app prints numbers (Python's "{:.4g}", no "-0"). */
export function num(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  if (value === 0) return "0";
  value = halfToEven(value);
  const exponent = Math.floor(Math.log10(Math.abs(Number(value.toPrecision(4)))));
  let text;
  if (exponent < -4 || exponent >= 4) {
    const [mantissa, power] = value.toExponential(3).split("e");
    const p = Number(power);
    text = `${trimZeros(mantissa)}e${p < 0 ? "-" : "+"}${String(Math.abs(p)).padStart(2, "0")}`;
  } else {
    text = trimZeros(value.toPrecision(4));
  }
  return text === "-0" ? "0" : text;
}

// NOTE: JavaScript rounds an exact tie up (1234.5 -> "1235"), Python to even ("1234"): a tie whose last kept digit
// is even is nudged toward zero by far less than any other rounding boundary (doubles carry ~17 digits).
function halfToEven(value) {
  const mantissa = Math.abs(value).toExponential(20).split("e")[0].replace(".", "");
  const tie = mantissa[4] === "5" && /^0*$/.test(mantissa.slice(5));
  return tie && Number(mantissa[3]) % 2 === 0 ? value * (1 - 1e-15) : value;
}

function trimZeros(text) {
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}
