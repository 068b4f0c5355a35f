/** Pieces every view uses. */
import type { ApiError } from '../api';

/** A failed request as the server said it, with the field causes of a validation error. */
export function ErrorBox({ error, what }: { error: ApiError; what?: string }) {
  const title = error.code === 403 ? `Forbidden${what ? `: you cannot see ${what}` : ''}` : error.code === 404 ? 'Not found' : error.code === 422 ? 'Invalid' : `Error${error.code ? ` ${error.code}` : ''}`;
  return (
    <div class="error" role="alert" data-testid="error">
      <strong>{title}</strong>
      <div>{error.message}</div>
      {error.causes.length > 0 && (
        <ul>
          {error.causes.map((c, i) => (
            <li key={i}>
              {c.field && <code>{c.field}</code>} {c.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A horizontal bar: `used` of `total`, with its label. */
export function Bar({ label, used, total, text }: { label: string; used: number; total: number; text: string }) {
  const pct = total > 0 ? Math.min(100, (used / total) * 100) : 0;
  return (
    <div class="bar-row">
      <span class="bar-label">{label}</span>
      <span class="bar" role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={total} aria-valuenow={used} aria-valuetext={text}>
        <span class={`fill${pct > 90 ? ' hot' : pct > 70 ? ' warm' : ''}`} style={{ width: `${pct}%` }} />
      </span>
      <span class="bar-text">{text}</span>
    </div>
  );
}
