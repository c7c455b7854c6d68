/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, ... */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const headings = markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} +(.+?) *$/gm);
  for (const [, text] of headings) {
    const slug = (text as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/**
 * The paragraphs of a page's prose, each as its lines: blank lines, headings, tables and fenced code blocks end one,
 * and so does the start of a list item, which is a paragraph of its own.
 */
export function paragraphs(markdown: string): string[][] {
  const result: string[][] = [];
  let current: string[] = [];
  const end = () => {
    if (current.length > 0) result.push(current);
    current = [];
  };
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) {
      end();
      fenced = !fenced;
    } else if (fenced || line.trim() === '' || /^(#| *\|)/.test(line)) {
      end();
    } else {
      if (/^\s*(- |\d+\. )/.test(line)) end();
      current.push(line);
    }
  }
  end();
  return result;
}
