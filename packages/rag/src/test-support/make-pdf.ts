import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A real PDF with one page per entry (each entry's lines drawn as text), and a title. */
export async function makePdf(title: string, pages: readonly (readonly string[])[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([595, 842]);
    lines.forEach((line, i) => {
      page.drawText(line, { x: 50, y: 780 - i * 18, size: 12, font });
    });
  }
  return doc.save();
}
