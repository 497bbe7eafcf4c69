import { useRef, useState } from 'preact/hooks';
import { useStudio } from '../context.js';

/** A file the user dropped or picked, as the run's body carries it (bytes as base64). */
export interface Attachment {
  name: string;
  mediaType: string;
  data: string;
  size: number;
}

/** What a model can be given from the page: images and PDFs (the server checks the type again). */
const ACCEPT = 'image/png,image/jpeg,image/gif,image/webp,application/pdf';

function readAsBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

/**
 * The Conversation page's attachments (the cap is the server's, from `GET /api/config`; it checks
 * again): drop files on the composer or pick them; each shows as a
 * removable chip. A file over the cap or of another type is refused here with a line saying so.
 */
export function useAttachments(maxBytes: number) {
  const [files, setFiles] = useState<Attachment[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const add = async (list: FileList | null | undefined) => {
    setProblem(null);
    for (const file of Array.from(list ?? [])) {
      if (!ACCEPT.split(',').includes(file.type)) {
        setProblem(
          `${file.name}: ${file.type || 'unknown type'}; attach an image (png, jpg, gif, webp) or a PDF`,
        );
        continue;
      }
      if (file.size > maxBytes) {
        setProblem(`${file.name}: ${file.size} bytes, over the ${maxBytes}-byte cap`);
        continue;
      }
      const data = await readAsBase64(file);
      setFiles((now) => [...now, { name: file.name, mediaType: file.type, data, size: file.size }]);
    }
  };
  return {
    files,
    problem,
    add,
    clear: () => setFiles([]),
    remove: (n: number) => setFiles((now) => now.filter((_, i) => i !== n)),
    /** Props for the element files may be dropped on. */
    dropTarget: {
      onDragOver: (event: DragEvent) => event.preventDefault(),
      onDrop: (event: DragEvent) => {
        event.preventDefault();
        void add(event.dataTransfer?.files);
      },
    },
  };
}

export function AttachmentPicker(props: {
  attachments: ReturnType<typeof useAttachments>;
  disabled: boolean;
}) {
  const studio = useStudio();
  const input = useRef<HTMLInputElement>(null);
  const { files, problem, add, remove } = props.attachments;
  return (
    <div class="attachments">
      <label for="attach">{studio.t('attach')}</label>
      <input
        id="attach"
        ref={input}
        type="file"
        multiple
        accept={ACCEPT}
        disabled={props.disabled}
        onChange={(event) => {
          const target = event.target as HTMLInputElement;
          void add(target.files).then(() => {
            target.value = '';
          });
        }}
      />
      {files.length > 0 && (
        <ul class="chips" aria-label={studio.t('attached')}>
          {files.map((f, n) => (
            <li key={`${f.name}-${n}`} data-attachment={f.name}>
              {f.name} <span class="muted">({Math.ceil(f.size / 1024)} KB)</span>{' '}
              <button type="button" onClick={() => remove(n)} aria-label={`${studio.t('remove')} ${f.name}`}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {problem && (
        <p class="error" role="alert" data-attach-error="">
          {problem}
        </p>
      )}
    </div>
  );
}
