import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { POLICIES } from "@/app/_components/policies";

export async function generateMetadata({ params }: { params: Promise<{ policy: string }> }): Promise<Metadata> {
  const policy = POLICIES[(await params).policy];
  return { title: policy?.title ?? "Not found" };
}

export default async function PolicyPage({ params }: { params: Promise<{ policy: string }> }) {
  const policy = Object.hasOwn(POLICIES, (await params).policy) ? POLICIES[(await params).policy] : undefined;
  if (!policy) notFound();
  return (
    <article aria-labelledby="policy-heading" className="policy">
      <h1 id="policy-heading">{policy.title}</h1>
      {policy.body}
    </article>
  );
}
