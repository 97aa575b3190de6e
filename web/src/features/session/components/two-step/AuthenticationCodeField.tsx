import { TextField } from "@/components/ui/TextField";

interface AuthenticationCodeFieldProps {
  value: string;
  onChange: (value: string) => void;
  invalid?: boolean;
  autoFocus?: boolean;
}

/** The field of an authenticator app's 6-digit code (the browser offers one-time codes there). */
export function AuthenticationCodeField({ value, onChange, invalid, autoFocus }: AuthenticationCodeFieldProps) {
  return (
    <TextField
      label="Authentication code"
      name="code"
      autoComplete="one-time-code"
      inputMode="numeric"
      placeholder="6-digit code"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      aria-invalid={invalid || undefined}
      autoFocus={autoFocus}
    />
  );
}
