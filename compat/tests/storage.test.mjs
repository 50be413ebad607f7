// Storage through supabase-js (storage-js 2.119.0): buckets, uploads in
// every body encoding, downloads, listing, move/copy/remove, signed URLs
// fetched by plain HTTP, public URLs, signed uploads, image transforms, and
// row-level security for two users and the anon key. Policies are created
// with psql on SUPABASE_DB_URL; user tokens are signed with the JWT secret,
// as a Supabase project's own tokens would be.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac, randomUUID } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { crc32, deflateSync } from 'node:zlib'
import { createClient } from '@supabase/supabase-js'

const url = process.env.SUPABASE_URL
const anonKey = process.env.SUPABASE_ANON_KEY
const serviceKey = process.env.SUPABASE_SERVICE_ROLE_KEY
const jwtSecret = process.env.SUPABASE_JWT_SECRET
const dbURL = process.env.SUPABASE_DB_URL

const opts = { auth: { persistSession: false, autoRefreshToken: false } }
const service = createClient(url, serviceKey, opts).storage
const anon = createClient(url, anonKey, opts).storage

// asUser is a client whose requests carry an access token for sub.
function asUser(sub) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const now = Math.floor(Date.now() / 1000)
  const head = b64({ alg: 'HS256', typ: 'JWT' })
  const body = b64({ sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600 })
  const sig = createHmac('sha256', jwtSecret).update(`${head}.${body}`).digest('base64url')
  const token = `${head}.${body}.${sig}`
  return createClient(url, anonKey, { ...opts, global: { headers: { Authorization: `Bearer ${token}` } } }).storage
}

function sql(statement) {
  execFileSync('psql', [dbURL, '-v', 'ON_ERROR_STOP=1', '-q', '-c', statement], { stdio: 'pipe' })
}

const uniq = () => randomUUID().slice(0, 8)

async function newBucket(options = { public: false }) {
  const id = `compat-${uniq()}`
  const { data, error } = await service.createBucket(id, options)
  assert.equal(error, null, error?.message)
  assert.deepEqual(data, { name: id })
  return id
}

// png builds a valid w×h RGB PNG, so transforms have something to decode.
function png(w, h) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(data.length)
    const td = Buffer.concat([Buffer.from(type), data])
    const c = Buffer.alloc(4)
    c.writeUInt32BE(crc32(td))
    return Buffer.concat([len, td, c])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(w, 0)
  ihdr.writeUInt32BE(h, 4)
  ihdr[8] = 8
  ihdr[9] = 2
  const raw = Buffer.alloc((w * 3 + 1) * h)
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) raw.set([x % 256, y % 256, 100], y * (w * 3 + 1) + 1 + x * 3)
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}
const pngSize = (buf) => [buf.readUInt32BE(16), buf.readUInt32BE(20)]

test('buckets: create, get, list, update, empty, delete with the reference errors', async () => {
  const id = await newBucket({ public: false, fileSizeLimit: '20mb', allowedMimeTypes: ['image/png'] })
  const { data: got, error } = await service.getBucket(id)
  assert.equal(error, null)
  assert.equal(got.id, id)
  assert.equal(got.name, id)
  assert.equal(got.public, false)
  assert.equal(got.file_size_limit, 20000000)
  assert.deepEqual(got.allowed_mime_types, ['image/png'])
  assert.match(got.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

  const { data: list } = await service.listBuckets()
  assert.ok(list.some((b) => b.id === id && b.type === 'STANDARD'))

  const dup = await service.createBucket(id)
  assert.equal(dup.error.statusCode, '409')
  assert.equal(dup.error.message, 'The resource already exists')

  const missing = await service.getBucket(`nope-${uniq()}`)
  assert.equal(missing.error.message, 'Bucket not found')
  assert.equal(missing.error.statusCode, '404')
  assert.equal(missing.error.status, 400)

  const upd = await service.updateBucket(id, { public: true, fileSizeLimit: null, allowedMimeTypes: null })
  assert.deepEqual(upd.data, { message: 'Successfully updated' })
  assert.equal((await service.getBucket(id)).data.public, true)

  const denied = await anon.emptyBucket(id)
  assert.equal(denied.error.status, 403)
  assert.equal(denied.error.message, 'Access denied: Invalid role')

  await service.from(id).upload('a.txt', 'a')
  const notEmpty = await service.deleteBucket(id)
  assert.equal(notEmpty.error.statusCode, '409')
  assert.deepEqual((await service.emptyBucket(id)).data, {
    message: 'Empty bucket has been queued. Completion may take up to an hour.',
  })
  assert.deepEqual((await service.deleteBucket(id)).data, { message: 'Successfully deleted' })
})

test('uploads: Blob, Buffer and string bodies; upsert; update; limits', async () => {
  const id = await newBucket({ public: false, fileSizeLimit: 1000, allowedMimeTypes: ['text/*', 'image/png'] })
  const files = service.from(id)

  const blob = new Blob(['blob body'], { type: 'text/plain' })
  const up = await files.upload('dir/blob.txt', blob, { upsert: true, cacheControl: '120', metadata: { a: 1 } })
  assert.equal(up.error, null, up.error?.message)
  assert.equal(up.data.path, 'dir/blob.txt')
  assert.equal(up.data.fullPath, `${id}/dir/blob.txt`)
  assert.match(up.data.id, /^[0-9a-f-]{36}$/)

  const dl = await files.download('dir/blob.txt')
  assert.equal(await dl.data.text(), 'blob body')
  assert.equal(dl.data.type, 'text/plain')

  await files.upload('buf.txt', Buffer.from('buffer body'))
  const buf = await files.download('buf.txt')
  assert.equal(buf.data.type, 'text/plain;charset=utf-8')

  const info = await files.info('dir/blob.txt')
  assert.equal(info.error, null)
  assert.equal(info.data.name, 'dir/blob.txt')
  assert.equal(info.data.size, 9)
  assert.equal(info.data.cacheControl, 'max-age=120')
  assert.equal(info.data.contentType, 'text/plain')
  assert.deepEqual(info.data.metadata, { a: 1 })
  assert.equal((await files.exists('dir/blob.txt')).data, true)
  assert.equal((await files.exists('dir/none.txt')).data, false)

  const dup = await files.upload('buf.txt', 'again')
  assert.equal(dup.error.statusCode, '409')
  assert.equal(dup.error.message, 'The resource already exists')
  assert.equal((await files.update('buf.txt', 'updated')).error, null)
  assert.equal(await (await files.download('buf.txt')).data.text(), 'updated')

  const big = await files.upload('big.txt', 'x'.repeat(1001))
  assert.equal(big.error.statusCode, '413')
  assert.equal(big.error.message, 'The object exceeded the maximum allowed size')
  const mime = await files.upload('a.json', '{}', { contentType: 'application/json' })
  assert.equal(mime.error.statusCode, '415')
  assert.equal(mime.error.message, 'mime type application/json is not supported')
  const badKey = await files.upload('café.txt', 'x')
  assert.equal(badKey.error.message, 'Invalid key: café.txt')
})

test('list, move, copy and remove', async () => {
  const id = await newBucket()
  const files = service.from(id)
  for (const p of ['folder/a.txt', 'folder/b.txt', 'folder/sub/c.txt', 'top.txt']) {
    assert.equal((await files.upload(p, p)).error, null)
  }
  const root = await files.list()
  assert.deepEqual(root.data.map((e) => [e.name, e.id === null]), [['folder', true], ['top.txt', false]])
  const folder = await files.list('folder', { limit: 10, sortBy: { column: 'name', order: 'desc' } })
  assert.deepEqual(folder.data.map((e) => e.name), ['sub', 'b.txt', 'a.txt'])
  assert.equal(folder.data[1].metadata.size, 12)
  const searched = await files.list('folder', { search: 'b' })
  assert.deepEqual(searched.data.map((e) => e.name), ['b.txt'])

  const mv = await files.move('top.txt', 'moved/top.txt')
  assert.equal(mv.error, null)
  assert.equal(mv.data.message, 'Successfully moved')
  assert.equal(await (await files.download('moved/top.txt')).data.text(), 'top.txt')
  assert.equal((await files.download('top.txt')).error.statusCode, '404')

  const cp = await files.copy('folder/a.txt', 'copies/a.txt')
  assert.equal(cp.error, null)
  assert.equal(cp.data.path, `${id}/copies/a.txt`)
  assert.equal(await (await files.download('copies/a.txt')).data.text(), 'folder/a.txt')

  const other = await newBucket()
  assert.equal((await files.move('copies/a.txt', 'x.txt', { destinationBucket: other })).error, null)
  assert.equal(await (await service.from(other).download('x.txt')).data.text(), 'folder/a.txt')

  const rm = await files.remove(['folder/a.txt', 'folder/b.txt', 'never-there.txt'])
  assert.equal(rm.error, null)
  assert.deepEqual(rm.data.map((o) => o.name).sort(), ['folder/a.txt', 'folder/b.txt'])
})

test('signed URLs work over plain HTTP and are scoped to one object', async () => {
  const id = await newBucket()
  const files = service.from(id)
  await files.upload('doc.txt', 'signed content')
  await files.upload('two.txt', 'second')

  const { data, error } = await files.createSignedUrl('doc.txt', 60, { download: 'report.txt' })
  assert.equal(error, null)
  assert.ok(data.signedUrl.startsWith(`${url}/storage/v1/object/sign/${id}/doc.txt?token=`))
  const res = await fetch(data.signedUrl)
  assert.equal(res.status, 200)
  assert.equal(await res.text(), 'signed content')
  assert.match(res.headers.get('content-disposition'), /filename=report.txt/)
  assert.ok(res.headers.get('expires'))

  const token = new URL(data.signedUrl).searchParams.get('token')
  const wrong = await fetch(`${url}/storage/v1/object/sign/${id}/two.txt?token=${token}`)
  assert.equal(wrong.status, 400)
  assert.equal((await wrong.json()).code, 'InvalidSignature')

  const many = await files.createSignedUrls(['doc.txt', 'missing.txt'], 60)
  assert.equal(many.data[0].error, null)
  assert.equal(await (await fetch(many.data[0].signedUrl)).text(), 'signed content')
  assert.equal(many.data[1].error, 'Either the object does not exist or you do not have access to it')

  const missing = await files.createSignedUrl('missing.txt', 60)
  assert.equal(missing.error.statusCode, '404')

  const up = await files.createSignedUploadUrl('uploaded/by-token.txt')
  assert.equal(up.error, null)
  assert.ok(up.data.signedUrl.startsWith(`${url}/storage/v1/object/upload/sign/${id}/uploaded/by-token.txt?token=`))
  const put = await anon.from(id).uploadToSignedUrl('uploaded/by-token.txt', up.data.token, new Blob(['via token']))
  assert.equal(put.error, null, put.error?.message)
  assert.equal(put.data.fullPath, `${id}/uploaded/by-token.txt`)
  assert.equal(await (await files.download('uploaded/by-token.txt')).data.text(), 'via token')
  const again = await anon.from(id).uploadToSignedUrl('uploaded/by-token.txt', up.data.token, new Blob(['again']))
  assert.equal(again.error.statusCode, '409')
})

test('public URLs serve public buckets only, with ranges and caching headers', async () => {
  const pub = await newBucket({ public: true })
  await service.from(pub).upload('song.mp3', Buffer.from('0123456789'), { contentType: 'audio/mpeg', cacheControl: '300' })
  const { data } = service.from(pub).getPublicUrl('song.mp3')
  assert.equal(data.publicUrl, `${url}/storage/v1/object/public/${pub}/song.mp3`)
  const res = await fetch(data.publicUrl)
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('content-type'), 'audio/mpeg')
  assert.equal(res.headers.get('cache-control'), 'max-age=300')
  const etag = res.headers.get('etag')
  assert.match(etag, /^"[0-9a-f]{32}"$/)
  assert.equal(await res.text(), '0123456789')

  const part = await fetch(data.publicUrl, { headers: { Range: 'bytes=2-5' } })
  assert.equal(part.status, 206)
  assert.equal(part.headers.get('content-range'), 'bytes 2-5/10')
  assert.equal(await part.text(), '2345')
  const cached = await fetch(data.publicUrl, { headers: { 'If-None-Match': etag } })
  assert.equal(cached.status, 304)

  const priv = await newBucket()
  await service.from(priv).upload('secret.txt', 'x')
  const hidden = await fetch(service.from(priv).getPublicUrl('secret.txt').data.publicUrl)
  assert.equal(hidden.status, 400)
  assert.equal((await hidden.json()).message, 'Bucket not found')
})

test('image transforms: download, public render and signed render', async () => {
  const id = await newBucket({ public: true })
  const files = service.from(id)
  await files.upload('pic.png', png(400, 300), { contentType: 'image/png' })

  const dl = await files.download('pic.png', { transform: { width: 100, height: 100, resize: 'contain' } })
  assert.equal(dl.error, null, dl.error?.message)
  assert.deepEqual(pngSize(Buffer.from(await dl.data.arrayBuffer())), [100, 75])

  const pub = files.getPublicUrl('pic.png', { transform: { width: 50, height: 50 } })
  const res = await fetch(pub.data.publicUrl)
  assert.equal(res.status, 200)
  assert.deepEqual(pngSize(Buffer.from(await res.arrayBuffer())), [50, 50])

  const signed = await files.createSignedUrl('pic.png', 60, { transform: { width: 200, height: 200, resize: 'cover', quality: 60 } })
  assert.ok(signed.data.signedUrl.includes('/render/image/sign/'))
  const sres = await fetch(signed.data.signedUrl)
  assert.equal(sres.headers.get('x-transformations'), 'height:200,width:200,resizing_type:fill,quality:60')
})

test('row-level security: two users and the anon key', async () => {
  const id = await newBucket()
  const alice = randomUUID()
  const bob = randomUUID()
  sql(`CREATE POLICY "compat ${id} own folder" ON storage.objects FOR ALL TO authenticated
       USING (bucket_id = '${id}' AND (storage.foldername(name))[1] = auth.uid()::text)
       WITH CHECK (bucket_id = '${id}' AND (storage.foldername(name))[1] = auth.uid()::text)`)
  sql(`CREATE POLICY "compat ${id} anon" ON storage.objects FOR ALL TO anon
       USING (bucket_id = '${id}' AND name LIKE 'public/%') WITH CHECK (bucket_id = '${id}' AND name LIKE 'public/%')`)
  const a = asUser(alice).from(id)
  const b = asUser(bob).from(id)

  assert.equal((await a.upload(`${alice}/mine.txt`, 'alice')).error, null)
  const denied = await a.upload(`${bob}/theirs.txt`, 'nope')
  assert.equal(denied.error.statusCode, '403')
  assert.equal(denied.error.message, 'new row violates row-level security policy')

  assert.equal(await (await a.download(`${alice}/mine.txt`)).data.text(), 'alice')
  const hidden = await b.download(`${alice}/mine.txt`)
  assert.equal(hidden.error.statusCode, '404')
  assert.equal((await b.exists(`${alice}/mine.txt`)).data, false)
  assert.deepEqual((await b.list(alice)).data, [])
  assert.deepEqual((await b.remove([`${alice}/mine.txt`])).data, [])
  assert.equal((await a.exists(`${alice}/mine.txt`)).data, true)
  assert.equal((await b.createSignedUrl(`${alice}/mine.txt`, 60)).error.statusCode, '404')

  // The supabase-js integration flow: upsert, list, remove with the anon key.
  const pub = anon.from(id)
  const up = await pub.upload('public/hello.txt', new Blob(['hi']), { upsert: true })
  assert.equal(up.error, null, up.error?.message)
  assert.deepEqual((await pub.list('public')).data.map((e) => e.name), ['hello.txt'])
  assert.deepEqual((await pub.remove(['public/hello.txt'])).data.map((o) => o.name), ['public/hello.txt'])
  assert.equal((await pub.upload('private.txt', 'x')).error.statusCode, '403')
})

test('TUS resumable upload through the gateway, as tus-js-client speaks it', async () => {
  const id = await newBucket()
  const data = Buffer.alloc(300000, 7)
  const b64 = (s) => Buffer.from(s).toString('base64')
  const headers = { apikey: anonKey, Authorization: `Bearer ${serviceKey}`, 'Tus-Resumable': '1.0.0' }
  const created = await fetch(`${url}/storage/v1/upload/resumable`, {
    method: 'POST',
    headers: {
      ...headers,
      'Upload-Length': String(data.length),
      'Upload-Metadata': `bucketName ${b64(id)},objectName ${b64('tracks/long.wav')},contentType ${b64('audio/wav')},cacheControl ${b64('3600')}`,
    },
  })
  assert.equal(created.status, 201, await created.text())
  const location = new URL(created.headers.get('location'), url).href
  assert.ok(location.startsWith(`${url}/storage/v1/upload/resumable/`))

  let offset = 0
  for (const size of [120000, 120000, 60000]) {
    const res = await fetch(location, {
      method: 'PATCH',
      headers: { ...headers, 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
      body: data.subarray(offset, offset + size),
    })
    assert.equal(res.status, 204, await res.text())
    offset += size
    assert.equal(res.headers.get('upload-offset'), String(offset))
    if (offset < data.length) {
      const head = await fetch(location, { method: 'HEAD', headers })
      assert.equal(head.headers.get('upload-offset'), String(offset))
    }
  }
  const dl = await service.from(id).download('tracks/long.wav')
  assert.equal(dl.error, null)
  assert.equal(dl.data.type, 'audio/wav')
  assert.ok(Buffer.from(await dl.data.arrayBuffer()).equals(data))
})
