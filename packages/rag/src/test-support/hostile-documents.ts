import { deflateSync } from 'node:zlib';

/** An HTML page of `count` paragraphs (100,000 make 1.1 MB): the shape that made HTML→markdown quadratic. */
export function paragraphsHtml(count: number): string {
  const parts = ['<html><head><title>Many paragraphs</title></head><body>'];
  for (let i = 0; i < count; i++) parts.push(`<p>para ${i}</p>`);
  parts.push('</body></html>');
  return parts.join('\n');
}

/**
 * A one-page PDF whose content stream inflates to `inflatedBytes` of text operators (151 MB from
 * a few hundred KB): a decompression bomb for any PDF text extractor.
 */
export function pdfBomb(inflatedBytes: number): Buffer {
  const line = Buffer.from('BT /F1 12 Tf 72 712 Td (bomb text bomb text) Tj ET\n');
  const content = Buffer.alloc(inflatedBytes, line);
  const stream = deflateSync(content, { level: 9 });
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    undefined, // the stream
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let at = chunks[0]?.length ?? 0;
  objects.forEach((body, i) => {
    offsets.push(at);
    const piece =
      body === undefined
        ? Buffer.concat([
            Buffer.from(`${i + 1} 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
            stream,
            Buffer.from('\nendstream\nendobj\n'),
          ])
        : Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`);
    chunks.push(piece);
    at += piece.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Root 1 0 R /Size ${objects.length + 1} >>`,
    'startxref',
    String(at),
    '%%EOF',
    '',
  ].join('\n');
  chunks.push(Buffer.from(xref));
  return Buffer.concat(chunks);
}
