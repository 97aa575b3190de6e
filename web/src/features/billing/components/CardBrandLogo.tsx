/**
 * The card brand's logo (SPEC 2 "Shows the card brand logo") for SPEC 3's brands: a small
 * card-shaped mark in the brand's colours with its wordmark, named for assistive technology.
 * Drawn here (a few hundred bytes) rather than shipping seven image files.
 */
const MARKS: Record<string, { bg: string; fg: string; text: string }> = {
  Visa: { bg: "#1a1f71", fg: "#ffffff", text: "VISA" },
  "American Express": { bg: "#2e77bc", fg: "#ffffff", text: "AMEX" },
  "Diners Club": { bg: "#0079be", fg: "#ffffff", text: "Diners" },
  Discover: { bg: "#ffffff", fg: "#ff6000", text: "DISCOVER" },
  JCB: { bg: "#0b4ea2", fg: "#ffffff", text: "JCB" },
  UnionPay: { bg: "#d10429", fg: "#ffffff", text: "UnionPay" },
};

export function CardBrandLogo({ brand }: { brand: string }) {
  const common = { width: 48, height: 32, viewBox: "0 0 48 32", role: "img", "aria-label": brand };
  if (brand === "MasterCard") {
    return (
      <svg {...common}>
        <rect width="48" height="32" rx="4" fill="#1a1a1a" />
        <circle cx="19" cy="16" r="9" fill="#eb001b" />
        <circle cx="29" cy="16" r="9" fill="#f79e1b" fillOpacity="0.9" />
      </svg>
    );
  }
  const mark = MARKS[brand] ?? { bg: "#667085", fg: "#ffffff", text: "CARD" };
  return (
    <svg {...common}>
      <rect width="48" height="32" rx="4" fill={mark.bg} stroke="#e4e7ec" />
      <text
        x="24"
        y="20"
        textAnchor="middle"
        fill={mark.fg}
        fontSize={mark.text.length > 5 ? 8 : 11}
        fontWeight="700"
        fontFamily="Arial, sans-serif"
        fontStyle={brand === "Visa" ? "italic" : undefined}
      >
        {mark.text}
      </text>
    </svg>
  );
}
