/**
 * A linear range slider over whole steps (SPEC 1 "a range slider"; SPEC 5 "Slider").
 *
 * A native `<input type="range">`: arrow keys, Page Up/Down, Home and End work, and the
 * browser exposes the slider role with aria-valuemin/max/now; `valueText` adds a readable
 * aria-valuetext ("3 units"). The filled track is drawn from `--fill` (0-100%).
 */
import { type CSSProperties, useId } from "react";

import styles from "./RangeSlider.module.css";

interface RangeSliderProps {
  label: string;
  value: number;
  min: number;
  max: number;
  step?: number;
  onChange: (value: number) => void;
  /** How assistive technology reads a value, e.g. (n) => `${n} units`. */
  valueText?: (value: number) => string;
  disabled?: boolean;
  /** Hide the label visually (it still names the slider). */
  hideLabel?: boolean;
}

export function RangeSlider({
  label,
  value,
  min,
  max,
  step = 1,
  onChange,
  valueText,
  disabled,
  hideLabel = false,
}: RangeSliderProps) {
  const id = useId();
  const fill = max > min ? ((value - min) / (max - min)) * 100 : 0;
  return (
    <div className={styles.slider}>
      <label htmlFor={id} className={hideLabel ? styles.hiddenLabel : styles.label}>
        {label}
      </label>
      <input
        id={id}
        type="range"
        className={styles.input}
        style={{ "--fill": `${fill}%` } as CSSProperties}
        min={min}
        max={max}
        step={step}
        value={value}
        disabled={disabled}
        aria-valuetext={valueText?.(value)}
        onChange={(event) => onChange(Number(event.currentTarget.value))}
      />
      <div className={styles.scale} aria-hidden="true">
        <span>{min}</span>
        <span>{max}</span>
      </div>
    </div>
  );
}
