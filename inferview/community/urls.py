from django.urls import path

from .views import corrections, cram, discussion, graded, learning, mock, start

app_name = "community"

urlpatterns = [
    path("dashboard/", learning.dashboard, name="dashboard"),
    path("bookmarks/", learning.bookmark_list, name="bookmarks"),
    path("review/", learning.review_list, name="review"),
    path("community/bookmarks/toggle/", learning.bookmark_toggle, name="bookmark-toggle"),
    path("community/questions/<int:pk>/practice/", learning.practice_save, name="practice"),
    path("community/questions/<int:pk>/rate/", learning.review_rate, name="rate"),
    path("community/questions/<int:pk>/progress/", learning.progress_set, name="progress"),
    path("community/questions/<int:pk>/difficulty/", discussion.difficulty_vote, name="difficulty"),
    path(
        "community/questions/<int:pk>/key-points/",
        graded.key_points,
        name="key-points",
    ),
    path("practice/questions/<int:pk>/numbers/", graded.numbers, name="numbers"),
    path("practice/mock/", mock.mock_list, name="mocks"),
    path("practice/mock/<int:pk>/", mock.mock_detail, name="mock"),
    path("practice/cram/", cram.cram_plan, name="cram"),
    path("start/", start.start, name="start"),
    path("community/<str:kind>/<int:pk>/comments/", discussion.comment_post, name="comment-post"),
    path("community/comments/<int:pk>/edit/", discussion.comment_edit, name="comment-edit"),
    path("community/comments/<int:pk>/delete/", discussion.comment_delete, name="comment-delete"),
    path("community/comments/<int:pk>/report/", discussion.comment_report, name="comment-report"),
    path("community/corrections/", corrections.correction_report, name="correction-report"),
]
